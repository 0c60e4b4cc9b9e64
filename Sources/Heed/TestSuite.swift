import Foundation
import HeedIntents
import Yams

/// A folder of recordings and the outcomes they must produce (`suite.yml`):
///
/// ```yaml
/// contexts: [../../Models/contexts/coffee.yml]   # relative to the suite
/// builtins: false                                 # default true
/// files:
///   order.wav: {intent: orderDrink, slots: {size: large}}
///   two.wav: [{intent: start}, {intent: stop}]    # several utterances, in order
///   chatter.wav: {understood: false}
/// ```
public struct TestSuite: Sendable {
    /// What one utterance must be: an intent with exactly these slots, or not understood.
    public struct Expectation: Equatable, Sendable {
        public var intent: Intent?
    }

    public struct Entry: Sendable {
        public var file: String
        /// Empty means the file must give no understood utterance.
        public var expected: [Expectation]
        /// A problem with the entry itself (the suite runs the rest).
        public var problem: String?
    }

    public var directory: URL
    public var contexts: [URL]
    public var builtins: Bool
    public var entries: [Entry]

    public init(directory: URL) throws(HeedError) {
        self.directory = directory
        let manifest = directory.appendingPathComponent("suite.yml")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else {
            throw HeedError(.cannotOpen, "\(manifest.path): cannot read the suite manifest")
        }
        let root: [String: Any]
        do {
            guard let mapping = try Yams.load(yaml: text) as? [String: Any] else { throw HeedError(.badInput, "\(manifest.path): expected a mapping with files") }
            root = mapping
        } catch let error as HeedError {
            throw error
        } catch {
            throw HeedError(.badInput, "\(manifest.path): not valid YAML (\(String(describing: error).split(separator: "\n").first ?? ""))")
        }
        contexts = (root["contexts"] as? [String] ?? []).map { directory.appendingPathComponent($0).standardizedFileURL }
        builtins = root["builtins"] as? Bool ?? true
        guard let files = root["files"] as? [String: Any], !files.isEmpty else {
            throw HeedError(.badInput, "\(manifest.path): `files` must map recordings to their expected outcomes")
        }
        entries = files.keys.sorted().map { name in
            var entry = Entry(file: name, expected: [], problem: nil)
            let items: [Any] = (files[name] as? [Any]) ?? [files[name] as Any]
            for item in items {
                guard let fields = item as? [String: Any] else { entry.problem = "each expectation is a mapping"; break }
                if fields["understood"] as? Bool == false { continue }
                guard let intent = fields["intent"] as? String else { entry.problem = "needs `intent:` or `understood: false`"; break }
                let slots = (fields["slots"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
                entry.expected.append(Expectation(intent: Intent(name: intent, slots: slots)))
            }
            if !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) { entry.problem = "no such file" }
            return entry
        }
    }

    /// Checks expectations against the intents and slots the loaded vocabulary can produce.
    public mutating func checkAgainst(intents: [String: Set<String>]) {
        for index in entries.indices where entries[index].problem == nil {
            for expectation in entries[index].expected {
                guard let intent = expectation.intent else { continue }
                guard let slots = intents[intent.name] else { entries[index].problem = "unknown intent '\(intent.name)'"; break }
                if let unknown = intent.slots.keys.sorted().first(where: { !slots.contains($0) }) {
                    entries[index].problem = "intent '\(intent.name)' has no slot '\(unknown)'"
                    break
                }
            }
        }
    }
}

extension Context {
    /// Each intent's slot names (for checking suites).
    public var slotNames: [String: Set<String>] {
        func names(_ pattern: Pattern) -> Set<String> {
            switch pattern {
            case .slot(_, let name): return [name]
            case .sequence(let items), .choice(let items, _): return items.reduce(into: Set<String>()) { $0.formUnion(names($1)) }
            case .word, .macro: return []
            }
        }
        return expressions.reduce(into: [:]) { $0[$1.intent, default: []].formUnion(names($1.pattern)) }
    }
}
