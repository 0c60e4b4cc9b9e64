import HeedIntents

/// One stretch of speech found in the input and what it meant.
public struct Utterance: Equatable, Sendable {
    /// Seconds from the start of the input to the first and past the last spoken word.
    public var start: Double
    public var end: Double
    /// The words the decoder heard; empty when the speech was not a command.
    public var transcript: String
    /// The intent the words carry; nil when not understood or when decoding a plain grammar.
    public var intent: Intent?
    /// False for speech that is not one of the active commands.
    public var understood: Bool
    /// Posterior probability of the decoded path against the alternatives (other commands and
    /// the garbage model), 0...1. Speech whose best path holds no command is not weighed against
    /// alternatives and reports 1 (see `CommandRecognizer.alternativesWanted`).
    public var confidence: Double
    public init(start: Double, end: Double, transcript: String, intent: Intent?, understood: Bool, confidence: Double) {
        self.start = start
        self.end = end
        self.transcript = transcript
        self.intent = intent
        self.understood = understood
        self.confidence = confidence
    }
}
