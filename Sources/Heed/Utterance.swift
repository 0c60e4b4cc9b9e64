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
    /// The detector's probability that the command decoded is the command spoken, 0...1 (0 when
    /// no command was decoded at all); for a plain JSGF grammar, the N-best share of its words.
    public var confidence: Double
    /// How the detector decided, when a command was decoded (accepted or not): its evidence,
    /// the probability and the threshold.
    public var detection: Detection?
    public init(start: Double, end: Double, transcript: String, intent: Intent?, understood: Bool, confidence: Double,
                detection: Detection? = nil) {
        self.start = start
        self.end = end
        self.transcript = transcript
        self.intent = intent
        self.understood = understood
        self.confidence = confidence
        self.detection = detection
    }
}
