import Foundation
import HeedIntents
import HeedYAML

/// A folder of recordings and the outcomes they must produce (`suite.yml`):
///
/// ```yaml
/// contexts: [../../Models/contexts/coffee.yml]   # relative to the suite (or absolute)
/// builtins: false                                 # default true
/// # grammar: cards.gram                           # or a plain JSGF grammar (transcripts only)
/// files:
///   order.wav: {intent: orderDrink, slots: {size: large}}
///   two.wav: [{intent: start}, {intent: stop}]    # several utterances, in order
///   chatter.wav: {understood: false}
///   said.wav: {transcript: "go forward ten meters"} # scored by word error rate
///   # With a context that has a `dialogue:`, a file can hold a whole exchange; `prompts`
///   # lists the questions asked (slot names, `confirm`) and the intent is the completed one.
///   tea.wav: {intent: orderDrink, slots: {drink: tea, size: large}, prompts: [size, confirm]}
///   declined.wav: {understood: false, prompts: [confirm]}
///   # An exchange recorded as one file per turn: played one after another (half a second apart).
///   tea-in-turns: {play: [order-tea.wav, large.wav, yes.wav], intent: orderDrink, prompts: [size, confirm]}
/// ```
/// File names are relative to the suite and may point outside it (`../../shared/x.wav`).
public struct TestSuite: Sendable {
    /// What one utterance must be: an intent with exactly these slots, and/or these words.
    public struct Expectation: Equatable, Sendable {
        public var intent: Intent?
        public var transcript: String?

        public init(intent: Intent? = nil, transcript: String? = nil) {
            self.intent = intent
            self.transcript = transcript
        }
    }

    public struct Entry: Sendable {
        /// The recording, or the entry's name when it plays several (`play:`).
        public var file: String
        /// The recordings decoded, in order, as one stream (usually just `file`).
        public var recordings: [String]
        /// Empty means the file must give no understood utterance.
        public var expected: [Expectation]
        /// A problem with the entry itself (the suite runs the rest).
        public var problem: String?
        /// The questions a dialogue must ask, in order (slot names, or `confirm`); nil: not checked.
        public var prompts: [String]?

        /// A negative: speech (or noise) that must not become a command.
        public var isNegative: Bool { expected.isEmpty }
    }

    public var directory: URL
    /// The suite's name in reports: its directory's name.
    public var name: String { directory.lastPathComponent }
    public var contexts: [URL]
    public var builtins: Bool
    public var grammar: URL?
    public var entries: [Entry]

    public init(directory: URL) throws(HeedError) {
        let manifest = directory.appendingPathComponent("suite.yml")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else {
            throw HeedError(.cannotOpen, "\(manifest.path): cannot read the suite manifest")
        }
        try self.init(manifest: text, directory: directory)
    }

    /// A suite from the text of its manifest; file names are relative to `directory`.
    public init(manifest text: String, directory: URL) throws(HeedError) {
        self.directory = directory
        let manifest = directory.appendingPathComponent("suite.yml")
        let root: [String: Any]
        do {
            guard let mapping = try BoundedYAML.load(text) as? [String: Any] else { throw HeedError(.badInput, "\(manifest.path): expected a mapping with files") }
            root = mapping
        } catch let error as HeedError {
            throw error
        } catch {
            throw HeedError(.badInput, "\(manifest.path): not valid YAML (\(String(describing: error).split(separator: "\n").first ?? ""))")
        }
        // Relative to the suite, unless absolute.
        let path = { (name: String) in
            (name.hasPrefix("/") ? URL(fileURLWithPath: name) : directory.appendingPathComponent(name)).standardizedFileURL
        }
        contexts = (root["contexts"] as? [String] ?? []).map(path)
        builtins = root["builtins"] as? Bool ?? true
        grammar = (root["grammar"] as? String).map(path)
        if grammar != nil && !contexts.isEmpty {
            throw HeedError(.badInput, "\(manifest.path): `grammar` cannot be combined with `contexts`")
        }
        guard let files = root["files"] as? [String: Any], !files.isEmpty else {
            throw HeedError(.badInput, "\(manifest.path): `files` must map recordings to their expected outcomes")
        }
        entries = files.keys.sorted().map { name in
            var entry = Entry(file: name, recordings: [name], expected: [], problem: nil)
            let items: [Any] = (files[name] as? [Any]) ?? [files[name] as Any]
            for item in items {
                guard let fields = item as? [String: Any] else { entry.problem = "each expectation is a mapping"; break }
                if let play = fields["play"] {
                    guard let names = play as? [String], !names.isEmpty else { entry.problem = "`play` is a list of recordings"; break }
                    entry.recordings = names
                }
                if let prompts = fields["prompts"] {
                    guard let names = prompts as? [Any] else { entry.problem = "`prompts` is a list of slot names and `confirm`"; break }
                    entry.prompts = (entry.prompts ?? []) + names.map { "\($0)" }
                }
                if fields["understood"] as? Bool == false { continue }
                let transcript = fields["transcript"].map { "\($0)" }
                let intent = (fields["intent"] as? String).map { name in
                    Intent(name: name, slots: (fields["slots"] as? [String: Any] ?? [:]).mapValues { "\($0)" })
                }
                guard intent != nil || transcript != nil else { entry.problem = "needs `intent:`, `transcript:` or `understood: false`"; break }
                entry.expected.append(Expectation(intent: intent, transcript: transcript))
            }
            if let missing = entry.recordings.first(where: { !FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) }) {
                entry.problem = missing == name ? "no such file" : "no such file: \(missing)"
            }
            return entry
        }
    }

    /// What the suite listens for. Loads its contexts and checks every expectation against the
    /// intents and slots they can produce, marking entries that name an unknown one.
    public mutating func loadVocabulary() throws(HeedError) -> Vocabulary {
        if let grammar {
            for index in entries.indices where entries[index].expected.contains(where: { $0.intent != nil }) {
                entries[index].problem = entries[index].problem ?? "a plain grammar gives transcripts, not intents"
            }
            return .jsgf(grammar)
        }
        let loaded = try contexts.map { (url) throws(HeedError) -> Context in
            do throws(ContextError) { return try Context(contentsOf: url) } catch { throw HeedError(.configuration, error.description) }
        }
        let commands: CommandSet = builtins ? .builtins : CommandSet()
        var known = Dictionary(uniqueKeysWithValues: commands.intentNames.map { ($0, Set<String>()) })
        for context in loaded { known.merge(context.slotNames) { $0.union($1) } }
        checkAgainst(intents: known)
        return .commands(commands, contexts: loaded)
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
