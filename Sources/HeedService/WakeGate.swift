import Heed

/// A wake phrase in front of the contexts: they are heard only in a short window after it
/// ("hey barista" ... "a large latte"), so that talk in the room the rest of the day cannot
/// order anything. The wake phrase is one more command in the grammar (`intent`); the gate is a
/// pure function of the utterances, one per stream (a hub keeps one per site).
public struct WakeGate: Sendable, Equatable {
    /// The intent of the wake phrase in the grammar.
    public static let intent = "heed.wake"

    public let phrase: String
    /// Seconds after the wake phrase during which a command is heard.
    public let window: Double
    /// Intents heard without the wake phrase (the built-ins, when they are always on).
    public let alwaysOn: Set<String>
    /// Stream time until which commands are heard (`-infinity`: asleep).
    public private(set) var awakeUntil = -Double.infinity

    public init(phrase: String, window: Double, alwaysOn: Set<String>) {
        self.phrase = phrase
        self.window = window
        self.alwaysOn = alwaysOn
    }

    /// The wake phrase as a command, for the grammar.
    public var command: CommandSet.Command {
        CommandSet.Command(intent: Self.intent, phrases: [Context.words(phrase)])
    }

    public enum Decision: Equatable, Sendable {
        /// The wake phrase: the window opens.
        case wake
        /// A command to act on.
        case pass
        /// A command heard while asleep: ignored.
        case asleep
        /// Not a command (not understood): reported as it is, and the window stays as it was.
        case notUnderstood
    }

    /// What to do with `utterance`. A command heard in the window closes it: one wake, one request.
    public mutating func decide(_ utterance: Utterance) -> Decision {
        guard utterance.understood, let intent = utterance.intent else { return .notUnderstood }
        if intent.name == Self.intent {
            awakeUntil = utterance.end + window
            return .wake
        }
        if alwaysOn.contains(intent.name) { return .pass }
        // The window counts from the end of the wake phrase to the start of the request.
        guard utterance.start <= awakeUntil else { return .asleep }
        awakeUntil = -.infinity
        return .pass
    }
}
