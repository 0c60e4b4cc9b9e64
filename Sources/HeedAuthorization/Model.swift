import Foundation

/// Something an app needs the person's permission for.
public enum Service: String, CaseIterable, Codable, Sendable, CustomStringConvertible {
    /// Opening any capture device.
    case microphone
    /// Decoding any audio, live or from a file.
    case speechRecognition = "speech-recognition"

    public var description: String { rawValue }

    /// How the service is named in a prompt.
    public var displayName: String {
        switch self {
        case .microphone: return "the microphone"
        case .speechRecognition: return "speech recognition"
        }
    }
}

/// Whether an app may use a service.
public enum AuthorizationStatus: String, Codable, Sendable, CustomStringConvertible {
    /// Nobody has decided yet; the app must ask.
    case notDetermined
    /// The person said no.
    case denied
    /// An administrator forbids it; the person cannot change that.
    case restricted
    /// The person (or an administrator) said yes.
    case authorized

    public var description: String { rawValue }
}

/// Who made a decision.
public enum DecisionSource: String, Codable, Sendable, CustomStringConvertible {
    /// The person answered the one-time prompt.
    case prompt
    /// The administrator's policy file.
    case policy
    /// `heed auth grant|deny` (or the library call behind it).
    case command

    public var description: String { rawValue }
}

/// One app's status for one service, with where it came from.
public struct Decision: Equatable, Sendable {
    public var app: String
    public var service: Service
    public var status: AuthorizationStatus
    /// nil when nothing has been decided.
    public var source: DecisionSource?
    public var date: Date?

    public init(app: String, service: Service, status: AuthorizationStatus, source: DecisionSource?, date: Date?) {
        self.app = app
        self.service = service
        self.status = status
        self.source = source
        self.date = date
    }
}

/// Why audio may not be heard or decoded. Each case says what to do about it.
public enum AuthorizationError: Error, Equatable, Sendable, CustomStringConvertible {
    case notDetermined(app: String, service: Service)
    case denied(app: String, service: Service)
    case restricted(app: String, service: Service)
    /// The app's manifest lacks the purpose string for a service it uses.
    case missingPurpose(app: String, key: String, manifest: String)
    case invalidManifest(path: String, problem: String)
    case invalidPolicy(path: String, problem: String)
    /// The decision store cannot be trusted; nothing is heard until it is fixed.
    case untrustedStore(path: String, problem: String, fix: String)

    public var description: String {
        switch self {
        case .notDetermined(let app, let service):
            return "\(app) has not been allowed to use \(service) yet; run `heed auth request \(service)` on a terminal to be asked, or `heed auth grant \(service)`"
        case .denied(let app, let service):
            return "\(app) was denied \(service); to change that, run `heed auth grant \(service)` or `heed auth reset \(service)` to be asked again"
        case .restricted(let app, let service):
            return "\(service) is restricted for \(app) by the administrator's policy; only the administrator can lift it"
        case .missingPurpose(let app, let key, let manifest):
            return "\(app) uses a service without saying why: add a non-empty `usage: {\(key): ...}` to \(manifest)"
        case .invalidManifest(let path, let problem):
            return "app manifest \(path): \(problem)"
        case .invalidPolicy(let path, let problem):
            return "policy \(path): \(problem); nothing is heard until it is fixed"
        case .untrustedStore(let path, let problem, let fix):
            return "decision store \(path) is not trusted: \(problem); \(fix). Nothing is heard or decoded until then"
        }
    }

    /// The refusal a status amounts to; nil for `authorized`.
    public init?(status: AuthorizationStatus, app: String, service: Service) {
        switch status {
        case .authorized: return nil
        case .denied: self = .denied(app: app, service: service)
        case .restricted: self = .restricted(app: app, service: service)
        case .notDetermined: self = .notDetermined(app: app, service: service)
        }
    }

    /// sysexits: 77 (permission) for decisions, 78 (configuration) for files that need fixing.
    public var exitCode: Int32 {
        switch self {
        case .notDetermined, .denied, .restricted, .untrustedStore: return 77
        case .missingPurpose, .invalidManifest, .invalidPolicy: return 78
        }
    }
}
