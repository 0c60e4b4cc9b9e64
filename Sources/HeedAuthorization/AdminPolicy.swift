import Foundation
import HeedYAML

/// What an administrator decides for every user: services restricted for all apps or some, and
/// apps authorized in advance (kiosks, test rigs).
///
/// ```yaml
/// restrict:
///   - service: microphone                 # every app
///   - service: speech-recognition
///     apps: [com.example.toy]
/// authorize:
///   - app: com.example.kiosk
///     services: [microphone, speech-recognition]
/// ```
/// A restriction always wins over any authorization, the user's or the policy's.
public struct AdminPolicy: Equatable, Sendable {
    /// The system-wide policy file.
    public static let systemPath = "/etc/heed/policy.yml"

    public struct Restriction: Equatable, Sendable {
        public var service: Service
        /// nil means every app.
        public var apps: Set<String>?

        public init(service: Service, apps: Set<String>?) {
            self.service = service
            self.apps = apps
        }
    }

    public var restrictions: [Restriction] = []
    public var authorizations: [String: Set<Service>] = [:]

    public init() {}

    public func isRestricted(_ service: Service, for app: String) -> Bool {
        restrictions.contains { $0.service == service && ($0.apps?.contains(app) ?? true) }
    }

    public func isPreauthorized(_ service: Service, for app: String) -> Bool {
        authorizations[app]?.contains(service) ?? false
    }

    /// Reads the policy files that exist, in order, and combines them. A file that exists but
    /// cannot be read, does not parse, or can be changed by users other than its owner is an
    /// error: the caller must fail closed.
    public static func load(paths: [String]) throws(AuthorizationError) -> AdminPolicy {
        var policy = AdminPolicy()
        for path in paths where FileManager.default.fileExists(atPath: path) {
            let file = try read(path)
            policy.restrictions += file.restrictions
            policy.authorizations.merge(file.authorizations) { $0.union($1) }
        }
        return policy
    }

    private static func read(_ path: String) throws(AuthorizationError) -> AdminPolicy {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .invalidPolicy(path: path, problem: "cannot be examined") }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            throw .invalidPolicy(path: path, problem: "can be changed by other users (mode \(String(info.st_mode & 0o777, radix: 8))); run `chmod go-w \(path)`")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw .invalidPolicy(path: path, problem: "cannot be read") }
        return try parse(text, path: path)
    }

    public static func parse(_ text: String, path: String) throws(AuthorizationError) -> AdminPolicy {
        let node: Any?
        do { node = try BoundedYAML.load(text) } catch {
            throw .invalidPolicy(path: path, problem: "not valid YAML (\(String(describing: error).split(separator: "\n").first ?? ""))")
        }
        var policy = AdminPolicy()
        guard let node else { return policy }  // an empty file restricts nothing
        guard let fields = node as? [String: Any] else { throw .invalidPolicy(path: path, problem: "expected a mapping with restrict and authorize") }
        for key in fields.keys where key != "restrict" && key != "authorize" {
            throw .invalidPolicy(path: path, problem: "unknown key '\(key)' (expected restrict, authorize)")
        }
        func service(_ value: Any?) throws(AuthorizationError) -> Service {
            guard let name = value as? String, let service = Service(rawValue: name) else {
                throw .invalidPolicy(path: path, problem: "unknown service '\(value.map { "\($0)" } ?? "")' (expected \(Service.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return service
        }
        for entry in fields["restrict"] as? [Any] ?? [] {
            guard let rule = entry as? [String: Any] else { throw .invalidPolicy(path: path, problem: "each restrict entry needs a service") }
            let apps = try (rule["apps"]).map { (value) throws(AuthorizationError) -> Set<String> in
                guard let list = value as? [String] else { throw .invalidPolicy(path: path, problem: "restrict apps must be a list of app ids") }
                return Set(list)
            }
            policy.restrictions.append(Restriction(service: try service(rule["service"]), apps: apps))
        }
        for entry in fields["authorize"] as? [Any] ?? [] {
            guard let rule = entry as? [String: Any], let app = rule["app"] as? String, let services = rule["services"] as? [Any] else {
                throw .invalidPolicy(path: path, problem: "each authorize entry needs an app and a list of services")
            }
            for name in services { policy.authorizations[app, default: []].insert(try service(name)) }
        }
        if fields["restrict"] != nil, !(fields["restrict"] is [Any]) { throw .invalidPolicy(path: path, problem: "restrict must be a list") }
        if fields["authorize"] != nil, !(fields["authorize"] is [Any]) { throw .invalidPolicy(path: path, problem: "authorize must be a list") }
        return policy
    }
}
