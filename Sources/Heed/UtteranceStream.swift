import HeedAudio

/// Decoding of one continuous stream: feed samples as they arrive, get utterances as their
/// ends are detected. Files, stdin and the microphone (through `Listener`) all go through this.
public struct UtteranceStream {
    private let recognizer: CommandRecognizer
    private var endpointer: Endpointer
    /// Recent samples; `history[0]` is stream sample `historyStart`. Holds the pre-roll while
    /// waiting for speech, and the whole utterance while in speech.
    private var history: [Int16] = []
    private var historyStart = 0
    /// Samples already given to the endpointer (whole frames only).
    private var endpointed = 0
    private var utteranceStart: Int?
    private var lastPartial = 0
    private var lastPartialText = ""

    init(recognizer: CommandRecognizer) {
        self.recognizer = recognizer
        endpointer = Endpointer(configuration: recognizer.options.endpointer)
    }

    /// Samples seen so far.
    public var position: Int { historyStart + history.count }

    public mutating func feed(_ samples: [Int16]) throws(HeedError) -> [Utterance] {
        try feedEvents(samples).compactMap { if case .utterance(let utterance) = $0 { utterance } else { nil } }
    }

    /// What happened in the stream, in order.
    public enum Event: Equatable, Sendable {
        /// Speech began this many seconds into the stream (the endpointer's onset, before pre-roll).
        case speechStart(Double)
        /// The words heard so far in the current utterance (with `partialInterval` set).
        case partial(String)
        case utterance(Utterance)
    }

    /// Like `feed`, and also reports where speech starts and, with `partialInterval`, the words
    /// heard so far (for live feedback).
    public mutating func feedEvents(_ samples: [Int16]) throws(HeedError) -> [Event] {
        history.append(contentsOf: samples)
        var events: [Event] = []
        let configuration = recognizer.options.endpointer
        let frameLength = configuration.frameLength
        while endpointed + frameLength <= position {
            let from = endpointed - historyStart
            let event = endpointer.process(frame: history[from..<from + frameLength])
            endpointed += frameLength
            switch event {
            case .speechStart(let at):
                utteranceStart = max(at, historyStart)
                lastPartial = endpointed
                lastPartialText = ""
                let onset = endpointed - Int(configuration.minSpeech * Double(recognizer.sampleRate))
                events.append(.speechStart(Double(onset) / Double(recognizer.sampleRate)))
            case .speechEnd(let at):
                if let utterance = try decode(upTo: at) { events.append(.utterance(utterance)) }
            case nil:
                if let start = utteranceStart, let interval = recognizer.options.partialInterval,
                   endpointed - lastPartial >= Int(interval * Double(recognizer.sampleRate)) {
                    lastPartial = endpointed
                    let text = try recognizer.partialTranscript(history[(start - historyStart)..<(endpointed - historyStart)])
                    if !text.isEmpty && text != lastPartialText { events.append(.partial(text)) }
                    lastPartialText = text
                }
            }
        }
        if utteranceStart == nil {
            // Keep only what the next utterance may need: its onset is confirmed `minSpeech`
            // after it begins, and it starts `preRoll` before that.
            let keep = Int((configuration.preRoll + configuration.minSpeech) * Double(recognizer.sampleRate)) + 2 * frameLength
            trimHistory(before: endpointed - keep)
        }
        return events
    }

    /// Ends the input: decodes any utterance still open.
    public mutating func finish() throws(HeedError) -> [Utterance] {
        guard case .speechEnd(let at) = endpointer.finish(totalSamples: position) else { return [] }
        return try decode(upTo: at).map { [$0] } ?? []
    }

    private mutating func decode(upTo end: Int) throws(HeedError) -> Utterance? {
        guard let start = utteranceStart else { return nil }
        utteranceStart = nil
        let samples = history[(start - historyStart)..<(min(end, position) - historyStart)]
        let utterance = try recognizer.decodeUtterance(samples, startSample: start)
        trimHistory(before: end)
        return utterance
    }

    private mutating func trimHistory(before sample: Int) {
        let drop = min(sample, position) - historyStart
        guard drop > 0 else { return }
        history.removeFirst(drop)
        historyStart += drop
    }
}
