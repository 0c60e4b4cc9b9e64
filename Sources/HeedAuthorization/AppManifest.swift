import Foundation
import HeedYAML

/// An app's declaration of who it is and why it uses each service: Heed's Info.plist.
///
/// ```yaml
/// id: com.example.todo
/// name: Todo
/// usage:
///   speech-recognition: "Lets you mark an item as finished by saying Done."
/// ```
public struct AppManifest: Equatable, Sendable {
    /// Reverse-DNS identifier; decisions are stored under it.
    public var id: String
    /// Shown in the prompt.
    public var name: String
    /// Why the app uses each service, shown in the prompt. Keyed by `Service.rawValue`.
    public var usage: [String: String]
    /// Where the manifest was read from (for messages).
    public var source: String

    public init(id: String, name: String, usage: [String: String], source: String = "(built in)") {
        self.id = id
        self.name = name
        self.usage = usage
        self.source = source
    }

    public init(contentsOf url: URL) throws(AuthorizationError) {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw .invalidManifest(path: url.path, problem: FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "no such file")
        }
        try self.init(yaml: text, source: url.path)
    }

    public init(yaml: String, source: String) throws(AuthorizationError) {
        let node: Any?
        do { node = try BoundedYAML.load(yaml) } catch {
            throw .invalidManifest(path: source, problem: "not valid YAML (\(String(describing: error).split(separator: "\n").first ?? ""))")
        }
        guard let fields = node as? [String: Any] else { throw .invalidManifest(path: source, problem: "expected a mapping with id, name and usage") }
        let known: Set<String> = ["id", "name", "usage"]
        if let unknown = fields.keys.filter({ !known.contains($0) }).sorted().first {
            throw .invalidManifest(path: source, problem: "unknown key '\(unknown)' (expected id, name, usage)")
        }
        guard let id = fields["id"] as? String, Self.isReverseDNS(id) else {
            throw .invalidManifest(path: source, problem: "`id` must be a reverse-DNS identifier such as com.example.app")
        }
        guard let name = fields["name"] as? String, !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .invalidManifest(path: source, problem: "`name` must be a non-empty string")
        }
        var usage: [String: String] = [:]
        if let raw = fields["usage"] {
            guard let map = raw as? [String: Any] else { throw .invalidManifest(path: source, problem: "`usage` must map services to purpose strings") }
            for (key, value) in map {
                guard Service(rawValue: key) != nil else {
                    throw .invalidManifest(path: source, problem: "unknown service '\(key)' in usage (expected \(Service.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                usage[key] = value as? String ?? ""
            }
        }
        self.init(id: id, name: name, usage: usage, source: source)
    }

    /// The purpose string for `service`; refuses when it is missing or blank.
    public func purpose(for service: Service) throws(AuthorizationError) -> String {
        guard let text = usage[service.rawValue]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw .missingPurpose(app: id, key: service.rawValue, manifest: source)
        }
        return text
    }

    public static func isReverseDNS(_ id: String) -> Bool {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }
    }
}
