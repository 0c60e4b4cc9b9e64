import HeedAudio
import HeedIntents

/// Decoding of one continuous stream: feed samples as they arrive, get utterances as their
/// ends are detected. Files, stdin and the microphone (through `Listener`) all go through this.
///
/// Each frame goes to the endpointer (high-passed, so hum and rumble do not hold it open, and
/// through the noise suppressor); at each pause the utterance so far is decoded, and the
/// grammar says how long to wait: a command that is complete and can go no further ends at the
/// usual `trailingSilence`; words that are not yet a whole command wait up to
/// `pauseInsideRequest`, and a whole request that may still go on ("a latte" ... "with oat
/// milk") halfway between the two. People pause mid-request.
public struct UtteranceStream {
    private let recognizer: CommandRecognizer
    private var endpointer: Endpointer
    private let noiseStage: NoiseStage
    /// Recent samples; `history[0]` is stream sample `historyStart`. Holds the pre-roll while
    /// waiting for speech, and the whole utterance while in speech.
    private var history: [Int16] = []
    private var historyStart = 0
    /// Samples already given to the endpointer (whole frames only).
    private var endpointed = 0
    private var utteranceStart: Int?
    private var lastPartial = 0
    private var lastPartialText = ""
    /// The front end's noise suppressor (a reference type, so a copied stream shares it; streams
    /// are not meant to be copied mid-way). It runs on all audio so its noise estimate stays
    /// current; `denoised` runs parallel to `history`, and the endpointer hears it.
    private let suppressor: NoiseSuppressor?
    private var denoised: [Int16] = []
    /// Raw samples the suppressor has not yet returned (it works in whole frames).
    private var awaitingSuppressor: [Int16] = []
    private var suppressorHighPass: HighPassFilter?
    private var highPass: HighPassFilter?
    /// The exchange around intents with a dialogue (nil when no context has one). After each
    /// utterance it decides what the next one is decoded against.
    private var conversation: Conversation?
    /// The utterance decoded at the pause under way (`Endpointer.tentativeEnd`): when the pause
    /// turns out to be its end, this is the result, ready the moment the end is confirmed.
    private var decodedAhead: (end: Int, grammar: Int, utterance: Utterance?, noisy: Bool)?
    /// Samples of the current utterance decoded at its last pause (0: none yet), and the last
    /// pause looked at.
    private var aheadLength = 0
    private var pauseSeen: Int?
    /// The silence the last pause's decode said to wait for (nil: the usual trailing silence).
    private var aheadWait: Double?
    /// Where the last utterance ended: the next one starts no earlier.
    private var lastEnd = 0

    init(recognizer: CommandRecognizer) {
        self.recognizer = recognizer
        conversation = recognizer.makeConversation()
        try? recognizer.expect(.command)  // a reused recognizer may still be waiting for an answer
        let options = recognizer.options
        noiseStage = NoiseStage(options: options, sampleRate: recognizer.sampleRate) { [decoder = recognizer.decoder] raw in
            options.noiseAdaptation.flatMap { decoder.noiseVariability(of: raw, quietest: $0.noiseVariabilityQuietest) }
        }
        highPass = options.highPassCutoff.map { HighPassFilter(cutoff: $0, sampleRate: recognizer.sampleRate) }
        suppressor = options.noiseSuppression.flatMap { NoiseSuppressor($0, sampleRate: recognizer.sampleRate) }
        suppressorHighPass = suppressor == nil ? nil
            : options.suppressorHighPassCutoff.map { HighPassFilter(cutoff: $0, sampleRate: recognizer.sampleRate) }
        var endpointing = options.endpointer
        if suppressor != nil { endpointing.minSpeech = max(endpointing.minSpeech, options.denoisedMinSpeech) }
        endpointer = Endpointer(configuration: endpointing)
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
        /// A question, a completed intent or an abandoned one (only for contexts with a
        /// `dialogue:`; then act on `.completed`, not on each utterance).
        case dialogue(Conversation.Event, time: Double)
    }

    /// Like `feed`, and also reports where speech starts and, with `partialInterval`, the words
    /// heard so far (for live feedback).
    public mutating func feedEvents(_ samples: [Int16]) throws(HeedError) -> [Event] {
        try learnPending()
        guard let suppressor else { return try consume(samples) }
        awaitingSuppressor.append(contentsOf: samples)
        let input = suppressorHighPass == nil ? samples : suppressorHighPass!.process(samples)
        return try consume(denoised: suppressor.process(input))
    }

    /// Pairs the suppressor's output with the raw samples it came from, then consumes both.
    private mutating func consume(denoised clean: [Int16]) throws(HeedError) -> [Event] {
        denoised.append(contentsOf: clean)
        let raw = Array(awaitingSuppressor.prefix(clean.count))
        awaitingSuppressor.removeFirst(raw.count)
        return try consume(raw)
    }

    /// Endpoints and decodes raw samples (their denoised twins, if any, are already in `denoised`).
    private mutating func consume(_ samples: [Int16]) throws(HeedError) -> [Event] {
        history.append(contentsOf: samples)
        var events: [Event] = []
        let configuration = endpointer.configuration
        let frameLength = configuration.frameLength
        while endpointed + frameLength <= position {
            let from = endpointed - historyStart
            var frame = (suppressor != nil ? denoised : history)[from..<from + frameLength]
            if highPass != nil { frame = highPass!.process(frame)[...] }
            let event = endpointer.process(frame: frame)
            endpointed += frameLength
            switch event {
            case .speechStart(let at):
                utteranceStart = max(at, historyStart, lastEnd)
                aheadLength = 0
                lastPartial = endpointed
                lastPartialText = ""
                let onset = endpointed - Int(configuration.minSpeech * Double(recognizer.sampleRate))
                events.append(.speechStart(Double(onset) / Double(recognizer.sampleRate)))
            case .speechEnd(let at):
                if let utterance = try decode(upTo: at) { events += try hear(utterance) }
            case nil:
                if utteranceStart == nil, conversation?.expectation != .command {
                    let now = Double(endpointed) / Double(recognizer.sampleRate)
                    events += try converse(at: now) { $0.tick(at: now) }
                }
                if let start = utteranceStart, let end = endpointer.tentativeEnd, decodedAhead?.end != end, pauseSeen != end {
                    pauseSeen = end
                    // A pause: decode what was said so far, and let the grammar say how long to wait.
                    // Only when the speech has at least doubled since the last such decode: speech
                    // that pauses often (reading aloud, talk behind the speaker) would otherwise be
                    // decoded again at every pause. Skipped, the pause waits as the last one did.
                    guard end - start >= 2 * aheadLength else {
                        endpointer.holdOpen(trailingSilence: aheadWait)
                        continue
                    }
                    aheadLength = end - start
                    let (ahead, noisy) = try decodeAudio(start..<end)
                    decodedAhead = (end, recognizer.grammarGeneration, ahead, noisy)
                    switch recognizer.completeness(of: ahead) {
                    case .complete: aheadWait = nil
                    // Real requests that could go on ("a latte" ... "with oat milk") lost nothing
                    // to a wait of 0.5 s or more, and 13 of 310 to 0.25 s (BENCHMARKS.md): halfway.
                    case .couldGoOn: aheadWait = (configuration.trailingSilence + configuration.pauseInsideRequest) / 2
                    case .incomplete: aheadWait = configuration.pauseInsideRequest
                    }
                    endpointer.holdOpen(trailingSilence: aheadWait)
                    continue  // a partial of the same audio would say nothing new
                }
                if let start = utteranceStart, let interval = recognizer.options.partialInterval,
                   endpointed - lastPartial >= Int(interval * Double(recognizer.sampleRate)) {
                    lastPartial = endpointed
                    let text = try recognizer.partialTranscript(raw(start..<endpointed))
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
        try finishEvents().compactMap { if case .utterance(let utterance) = $0 { utterance } else { nil } }
    }

    /// Like `finish`, with every event (a question still open at the end is abandoned).
    public mutating func finishEvents() throws(HeedError) -> [Event] {
        var events: [Event] = []
        if let suppressor { events = try consume(denoised: suppressor.flush()) }
        if case .speechEnd(let at) = endpointer.finish(totalSamples: position), let utterance = try decode(upTo: at) {
            events += try hear(utterance)
        }
        events += try converse(at: Double(position) / Double(recognizer.sampleRate)) { $0.finish() }
        try learnPending()
        return events
    }

    /// The last command understood, to learn the speaker from (`RecognizerOptions.learnsSpeaker`)
    /// once it has been reported: learning is not on the way from speech to result.
    private var pendingLearning: (utterance: Utterance, samples: [Int16])?

    private mutating func learnPending() throws(HeedError) {
        guard let pending = pendingLearning else { return }
        pendingLearning = nil
        try recognizer.learnSpeaker(from: pending.utterance, samples: pending.samples[...])
    }

    /// An utterance, and what the conversation (if any) makes of it.
    private mutating func hear(_ utterance: Utterance) throws(HeedError) -> [Event] {
        let steps = try converse(at: utterance.end) {
            $0.heard(intent: utterance.intent, words: Context.words(utterance.transcript), understood: utterance.understood,
                     start: utterance.start, end: utterance.end)
        }
        return [.utterance(utterance)] + steps
    }

    /// Runs one step of the conversation at stream time `time`, points the recognizer at what it
    /// expects next, and returns the step's events.
    private mutating func converse(at time: Double, _ step: (inout Conversation) -> [Conversation.Event]) throws(HeedError) -> [Event] {
        guard conversation != nil else { return [] }
        let steps = step(&conversation!)
        try recognizer.expect(conversation!.expectation)
        return steps.map { .dialogue($0, time: time) }
    }

    private mutating func decode(upTo end: Int) throws(HeedError) -> Utterance? {
        guard let start = utteranceStart else { return nil }
        // Several utterances in one feed (a file): each is learned from before the next.
        try learnPending()
        utteranceStart = nil
        defer { decodedAhead = nil }
        let end = min(end, position)
        let utterance: Utterance?, noisy: Bool
        if let ahead = decodedAhead, ahead.end == end, ahead.grammar == recognizer.grammarGeneration {
            (utterance, noisy) = (ahead.utterance, ahead.noisy)
        } else {
            (utterance, noisy) = try decodeAudio(start..<end)
        }
        lastEnd = end
        if utterance?.understood == true, recognizer.options.learnsSpeaker, !noisy, let utterance {
            // Noisy audio is never learned from.
            pendingLearning = (utterance, Array(raw(start..<end)))
        }
        trimHistory(before: end)
        return utterance
    }

    /// The utterance in the stream's samples in `range`, decoded by the plan the noise stage
    /// makes for it, and whether it was noisy.
    private func decodeAudio(_ range: Range<Int>) throws(HeedError) -> (utterance: Utterance?, noisy: Bool) {
        let plan = noiseStage.plan(raw: raw(range)) {
            suppressor == nil ? nil : denoised[range.lowerBound - historyStart..<range.upperBound - historyStart]
        }
        recognizer.explain(String(format: "utterance at %.2f-%.2f s: ", Double(range.lowerBound) / Double(recognizer.sampleRate),
                                  Double(range.upperBound) / Double(recognizer.sampleRate)) + plan.kind.rawValue)
        return (try recognizer.decodeUtterance(plan, startSample: range.lowerBound), plan.noisy)
    }

    private func raw(_ range: Range<Int>) -> ArraySlice<Int16> {
        history[(range.lowerBound - historyStart)..<(range.upperBound - historyStart)]
    }

    private mutating func trimHistory(before sample: Int) {
        let drop = min(sample, position) - historyStart
        guard drop > 0 else { return }
        history.removeFirst(drop)
        if suppressor != nil { denoised.removeFirst(drop) }
        historyStart += drop
    }
}
