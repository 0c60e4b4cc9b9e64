/// An intent: what the person wants done, with its parameters.
public struct Intent: Equatable, Hashable, Sendable {
    public var name: String
    public var slots: [String: String]

    public init(name: String, slots: [String: String] = [:]) {
        self.name = name
        self.slots = slots
    }
}

/// The phrases that are active, and which intent each one carries.
///
/// Matching is a pure function from a word sequence to an intent: the decoder's grammar only
/// allows these phrases, and this table says what they mean.
public struct CommandSet: Equatable, Sendable {
    public struct Command: Equatable, Sendable {
        public var intent: String
        /// Fixed slot values the phrases carry (a donated shortcut's stored slots).
        public var slots: [String: String]
        /// Each phrase is a sequence of lower-case dictionary words.
        public var phrases: [[String]]

        public init(intent: String, slots: [String: String] = [:], phrases: [[String]]) {
            self.intent = intent
            self.slots = slots
            self.phrases = phrases
        }
    }

    public private(set) var commands: [Command]

    public init(_ commands: [Command] = []) {
        self.commands = commands
    }

    /// The commands every Heed app understands unless it opts out.
    public static let builtins = CommandSet(
        ["start", "stop", "pause", "resume", "done", "cancel"].map { Command(intent: $0, phrases: [[$0]]) }
    )

    public var phrases: [[String]] { commands.flatMap(\.phrases) }
    public var intentNames: [String] { commands.map(\.intent) }

    public mutating func add(_ command: Command) {
        commands.append(command)
    }

    /// The intent a word sequence carries, or nil when it is not one of the phrases.
    public func match(_ words: [String]) -> Intent? {
        let normalized = words.map { $0.lowercased() }
        for command in commands where command.phrases.contains(normalized) {
            return Intent(name: command.intent, slots: command.slots)
        }
        return nil
    }
}
