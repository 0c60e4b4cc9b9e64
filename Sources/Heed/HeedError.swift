import HeedAudio
import HeedAuthorization
import HeedRecognition

/// Errors from the pipeline, each with the exit status a command-line tool should use.
public struct HeedError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable {
        /// The input exists but is not usable audio (sysexits EX_DATAERR, 65).
        case badInput
        /// The input cannot be opened (EX_NOINPUT, 66).
        case cannotOpen
        /// The model, dictionary, grammar, app manifest or policy is missing or wrong (EX_CONFIG, 78).
        case configuration
        /// Not authorized to hear or decode (EX_NOPERM, 77).
        case permission
        /// The capture device is missing, busy or gone (EX_UNAVAILABLE, 69).
        case unavailable
        /// The decoder failed (EX_SOFTWARE, 70).
        case internalFailure
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    public var exitCode: Int32 {
        switch kind {
        case .badInput: return 65
        case .cannotOpen: return 66
        case .configuration: return 78
        case .permission: return 77
        case .unavailable: return 69
        case .internalFailure: return 70
        }
    }

    init(_ error: AudioError) {
        switch error {
        case .cannotOpen(let why): self.init(.cannotOpen, why)
        case .invalidFormat(let why), .unsupported(let why): self.init(.badInput, why)
        }
    }

    public init(_ error: AuthorizationError) {
        self.init(error.exitCode == 77 ? .permission : .configuration, error.description)
    }

    init(_ error: RecognitionError) {
        switch error.kind {
        case .model, .grammar, .dictionary: self.init(.configuration, error.message)
        case .decoding: self.init(.internalFailure, error.message)
        }
    }
}
