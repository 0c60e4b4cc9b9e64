import Foundation
import Synchronization

/// Asks the person, once, whether an app may use a service.
public protocol Prompter {
    /// Returns true for Allow, false for Don't Allow, nil when no answer could be had.
    func ask(appName: String, service: Service, purpose: String) -> Bool?
}

/// Decides whether an app may use a service: the administrator's policy, then the person's
/// recorded decision, then the one-time prompt.
public struct Authorizer: Sendable {
    public let store: DecisionStore
    public let policy: AdminPolicy

    public init(store: DecisionStore, policy: AdminPolicy) {
        self.store = store
        self.policy = policy
    }

    /// The store in `stateDirectory` (default: `DecisionStore.defaultDirectory()`), with the
    /// system policy and any extra policy files (`HEED_POLICY`, for test rigs). Extra files add
    /// rules; they can never remove the system policy's restrictions.
    public static func standard(stateDirectory: URL? = nil, extraPolicies: [String]? = nil,
                                environment: [String: String] = ProcessInfo.processInfo.environment) throws(AuthorizationError) -> Authorizer {
        let extra = extraPolicies ?? environment["HEED_POLICY"].map { [$0] } ?? []
        let policy = try AdminPolicy.load(paths: [AdminPolicy.systemPath] + extra)
        let store = try DecisionStore(directory: stateDirectory ?? DecisionStore.defaultDirectory(environment: environment))
        return Authorizer(store: store, policy: policy)
    }

    /// The current status, and who decided it.
    public func decision(_ service: Service, for app: String) throws(AuthorizationError) -> Decision {
        if policy.isRestricted(service, for: app) {
            return Decision(app: app, service: service, status: .restricted, source: .policy, date: nil)
        }
        // A person's own "no" stands even when the administrator pre-authorized the app.
        if let recorded = try store.decision(app: app, service: service) { return recorded }
        if policy.isPreauthorized(service, for: app) {
            return Decision(app: app, service: service, status: .authorized, source: .policy, date: nil)
        }
        return Decision(app: app, service: service, status: .notDetermined, source: nil, date: nil)
    }

    /// The status, asking the person when nothing is decided and a prompter is available.
    /// Refuses before anything else when the manifest lacks the service's purpose string.
    public func request(_ service: Service, for app: AppManifest, prompter: Prompter?) throws(AuthorizationError) -> AuthorizationStatus {
        let purpose = try app.purpose(for: service)
        let current = try decision(service, for: app.id)
        guard current.status == .notDetermined, let prompter else { return current.status }
        guard let allowed = prompter.ask(appName: app.name, service: service, purpose: purpose) else { return .notDetermined }
        try store.record(app: app.id, service: service, status: allowed ? .authorized : .denied, source: .prompt)
        return allowed ? .authorized : .denied
    }

    /// Records the person's decision made outside the prompt (`heed auth grant|deny`).
    /// A restriction cannot be overridden this way.
    public func set(_ status: AuthorizationStatus, _ service: Service, for app: String) throws(AuthorizationError) {
        if status == .authorized, policy.isRestricted(service, for: app) { throw .restricted(app: app, service: service) }
        try store.record(app: app, service: service, status: status, source: .command)
    }

    /// The permission the pipeline needs before it hears or decodes anything: succeeds only when
    /// the service is authorized (asking first, if it may).
    public func authorize(_ service: Service, for app: AppManifest, prompter: Prompter?) throws(AuthorizationError) -> Authorization {
        let status = try request(service, for: app, prompter: prompter)
        if let refusal = AuthorizationError(status: status, app: app.id, service: service) { throw refusal }
        return Authorization(authorizer: self, service: service, app: app.id)
    }
}

/// Proof that an app was authorized for a service, which stays valid only while the decision
/// does: `verify()` re-reads it (at most every `recheckInterval`), so a `heed auth deny` or
/// `reset` from another terminal stops a running pipeline within a second. Once a check fails,
/// the authorization is spent: every later `verify()` fails too, and the app must ask again.
public final class Authorization: Sendable {
    public let service: Service
    public let app: String
    public let recheckInterval: Duration
    private let authorizer: Authorizer
    private let state: Mutex<(lastCheck: ContinuousClock.Instant, revoked: AuthorizationError?)>

    init(authorizer: Authorizer, service: Service, app: String, recheckInterval: Duration = .milliseconds(500)) {
        self.authorizer = authorizer
        self.service = service
        self.app = app
        self.recheckInterval = recheckInterval
        state = Mutex((.now, nil))
    }

    /// Throws when the service is no longer authorized.
    public func verify() throws(AuthorizationError) {
        let now = ContinuousClock.now
        let (due, revoked) = state.withLock { state in
            guard state.revoked == nil, now - state.lastCheck >= recheckInterval else { return (false, state.revoked) }
            state.lastCheck = now
            return (true, nil)
        }
        if let revoked { throw revoked }
        if due { try verifyNow() }
    }

    /// Re-reads the decision now, whatever the interval.
    public func verifyNow() throws(AuthorizationError) {
        if let revoked = state.withLock({ $0.revoked }) { throw revoked }
        let failure: AuthorizationError
        do {
            let status = try authorizer.decision(service, for: app).status
            guard let refusal = AuthorizationError(status: status, app: app, service: service) else { return }
            failure = refusal
        } catch {
            failure = error  // a store that became unreadable is no authorization either
        }
        state.withLock { $0.revoked = failure }
        throw failure
    }
}
