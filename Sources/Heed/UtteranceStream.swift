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
    /// The front end: steady noise removed before decoding (a reference type, so a copied
    /// stream shares it; streams are not meant to be copied mid-way). It runs on all audio so
    /// its noise estimate stays current; `denoised` runs parallel to `history`.
    private let suppressor: NoiseSuppressor?
    private var denoised: [Int16] = []
    /// Raw samples the suppressor has not yet returned (it works in whole frames).
    private var awaitingSuppressor: [Int16] = []
    private var suppressorHighPass: HighPassFilter?
    /// The endpointer hears `denoised` instead of `history` (`endpointsDenoisedAudio`).
    private let endpointsDenoised: Bool
    private var highPass: HighPassFilter?
    private var humCanceller: MainsHumCanceller?
    /// The exchange around intents with a dialogue (nil when no context has one). After each
    /// utterance it decides what the next one is decoded against.
    private var conversation: Conversation?
    /// Live streams decode an utterance as soon as its audio is complete (`Endpointer.tentativeEnd`),
    /// while the endpointer still waits for the rest of the trailing silence; when that silence
    /// holds, the result is ready the moment the endpoint is confirmed. The same audio against the
    /// same grammar: the result is the one decoding at the endpoint would give.
    private let decodesAhead: Bool
    /// `final`: false when the decode will differ at the end (the steady-noise mask then hears
    /// the trailing silence too), so it is done again.
    private var decodedAhead: (end: Int, grammar: Int, utterance: Utterance?, noisy: Bool, final: Bool)?
    /// Where the last utterance ended: the next one starts no earlier, even while the samples
    /// before are still kept (`unheard`).
    private var lastEnd = 0
    /// The last utterance, when it was noisy and not understood: kept while the next may still
    /// turn out to be its rest (`RecognizerOptions.rejoinGap`).
    private var unheard: Range<Int>?
    /// Where the current utterance's speech began (its start without the pre-roll).
    private var utteranceOnset = 0
    /// The tentative end of the last pause in speech judged by `holdOpenInSteadyNoise`.
    private var judgedPauseEnd: Int?

    init(recognizer: CommandRecognizer, decodesAhead: Bool = false) {
        self.recognizer = recognizer
        self.decodesAhead = decodesAhead
        conversation = recognizer.makeConversation()
        try? recognizer.expect(.command)  // a reused recognizer may still be waiting for an answer
        let options = recognizer.options
        highPass = options.highPassCutoff.map { HighPassFilter(cutoff: $0, sampleRate: recognizer.sampleRate) }
        humCanceller = options.cancelsMainsHum ? MainsHumCanceller(sampleRate: recognizer.sampleRate) : nil
        suppressor = options.noiseSuppression.flatMap { NoiseSuppressor($0, sampleRate: recognizer.sampleRate) }
        suppressorHighPass = suppressor == nil ? nil
            : options.suppressorHighPassCutoff.map { HighPassFilter(cutoff: $0, sampleRate: recognizer.sampleRate) }
        endpointsDenoised = suppressor != nil && options.endpointsDenoisedAudio
        var endpointing = options.endpointer
        if endpointsDenoised { endpointing.minSpeech = max(endpointing.minSpeech, options.denoisedMinSpeech) }
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
        // First: every later stage (suppressor, endpointer, decoder) would hear the hum as sound.
        let samples = humCanceller == nil ? samples : humCanceller!.process(samples)
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
            // The endpointer hears the audio without hum and rumble (which the decoder ignores
            // anyway): otherwise mains hum holds it open. The decoder gets clean audio unfiltered.
            var frame = (endpointsDenoised ? denoised : history)[from..<from + frameLength]
            if highPass != nil { frame = highPass!.process(frame)[...] }
            let event = endpointer.process(frame: frame)
            endpointed += frameLength
            switch event {
            case .speechStart(let at):
                utteranceStart = max(at, historyStart, lastEnd)
                utteranceOnset = at + Int(configuration.preRoll * Double(recognizer.sampleRate))
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
                if let start = utteranceStart, let end = endpointer.tentativeEnd, judgedPauseEnd != end {
                    judgedPauseEnd = end
                    holdOpenInSteadyNoise(start..<end)
                }
                if decodesAhead, let start = utteranceStart, let end = endpointer.tentativeEnd, decodedAhead?.end != end {
                    let (ahead, noisy, _, masked) = try decodeAudio(start..<end)
                    decodedAhead = (end, recognizer.grammarGeneration, ahead, noisy, !masked)
                    continue  // a partial of the same audio would say nothing new
                }
                if let start = utteranceStart, let interval = recognizer.options.partialInterval,
                   endpointed - lastPartial >= Int(interval * Double(recognizer.sampleRate)) {
                    lastPartial = endpointed
                    let (samples, noisy, _) = audio(start..<endpointed, judgingNoise: false)
                    let text = try recognizer.partialTranscript(samples, noisy: noisy)
                    if !text.isEmpty && text != lastPartialText { events.append(.partial(text)) }
                    lastPartialText = text
                }
            }
        }
        if utteranceStart == nil {
            // Keep only what the next utterance may need: its onset is confirmed `minSpeech`
            // after it begins, and it starts `preRoll` before that; and, until the gap has
            // passed, the last utterance when it may still be rejoined (`unheard`).
            let keep = max(Int((configuration.preRoll + configuration.minSpeech) * Double(recognizer.sampleRate)) + 2 * frameLength,
                           recognizer.options.steadyNoiseMask == nil ? 0 : noiseContextSamples)
            if let kept = unheard, endpointed - kept.upperBound > keep + rejoinGapSamples { unheard = nil }
            trimHistory(before: min(endpointed - keep, unheard?.lowerBound ?? .max))
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
        var utterance: Utterance?
        let noisy: Bool
        var decoded: ArraySlice<Int16>?
        if let ahead = decodedAhead, ahead.end == end, ahead.grammar == recognizer.grammarGeneration, ahead.final {
            (utterance, noisy) = (ahead.utterance, ahead.noisy)
        } else {
            (utterance, noisy, decoded, _) = try decodeAudio(start..<end)
        }
        let earlier = unheard
        unheard = nil
        lastEnd = end
        if utterance?.understood != true, let earlier, let joined = try rejoined(earlier, upTo: end, speechAt: utteranceOnset) {
            utterance = joined  // noisy: not learned from
        } else if utterance?.understood != true {
            if noisy, recognizer.options.rejoinGap != nil { unheard = start..<end }
        } else if recognizer.options.learnsSpeaker, !noisy, let utterance {
            // The audio as decoded; only a result decoded ahead needs it again. Noisy audio is never learned from.
            pendingLearning = (utterance, Array(decoded ?? audio(start..<end, judgingNoise: false).samples))
        }
        trimHistory(before: unheard?.lowerBound ?? end)
        return utterance
    }

    /// How much audio before an utterance the steady-noise mask hears (1 s), when the history holds it.
    private var noiseContextSamples: Int { recognizer.sampleRate }

    private var rejoinGapSamples: Int { Int((recognizer.options.rejoinGap ?? 0) * Double(recognizer.sampleRate)) }

    /// The utterance `earlier` (noisy, not understood) and the one after it whose speech begins at
    /// `onset`, decoded as one when the pause between them is at most `rejoinGap`, the whole stays
    /// within the endpointer's longest utterance and is noisy, and a command is understood in it
    /// that spans the pause (a command inside one piece is not what the pause cut in two);
    /// otherwise nil. Only while listening for commands: an answer is a short phrase of its own.
    private mutating func rejoined(_ earlier: Range<Int>, upTo end: Int, speechAt onset: Int) throws(HeedError) -> Utterance? {
        guard recognizer.options.rejoinGap != nil, onset - earlier.upperBound <= rejoinGapSamples,
              (conversation?.expectation ?? .command) == .command,
              Double(end - earlier.lowerBound) <= endpointer.configuration.maxUtterance * Double(recognizer.sampleRate) else { return nil }
        recognizer.explain("not understood, nor was the noisy utterance just before it: the two decoded again as one")
        let (joined, noisy, _, _) = try decodeAudio(earlier.lowerBound..<end)
        guard noisy, let joined, joined.understood else { return nil }
        let rate = Double(recognizer.sampleRate)
        return joined.start < Double(earlier.upperBound) / rate && joined.end > Double(onset) / rate ? joined : nil
    }

    /// The utterance in the stream's samples in `range`, whether they are noisy, and the samples
    /// as decoded (`audio`); clean ones with the quiet floor at hand for a second opinion.
    /// Samples over background talk, noisy or not (`BackgroundTalkMask.masksCleanUtterances`), are
    /// decoded through the talk mask instead (`RecognizerOptions.backgroundTalkMask`), and counted
    /// noisy; noisy samples in steady noise go through the steady
    /// noise mask (`steadyNoiseMask`; `steadyMasked`).
    private func decodeAudio(_ range: Range<Int>) throws(HeedError) -> (utterance: Utterance?, noisy: Bool, samples: ArraySlice<Int16>, steadyMasked: Bool) {
        let (samples, noisy, steady) = audio(range)
        recognizer.explain(String(format: "utterance at %.2f-%.2f s: ", Double(range.lowerBound) / Double(recognizer.sampleRate),
                                  Double(range.upperBound) / Double(recognizer.sampleRate))
                           + Self.judgement(noisy: noisy, steady: steady))
        if let talk = recognizer.options.backgroundTalkMask, (noisy && !steady) || (!noisy && talk.masksCleanUtterances),
           recognizer.isOverBackgroundTalk(raw(range)) {
            recognizer.explain((noisy ? "" : "the noise under it changes like talk: ")
                               + "over background talk: through the talk mask, a copy per floor, which must agree")
            return (try decodeThroughMask(raw(range), startSample: range.lowerBound, talk.mask, floors: talk.floors, mildFloorSteps: talk.mildFloorSteps,
                                          agreement: talk.copyAgreement, loneCopyMinConfidence: talk.loneCopyMinConfidence,
                                          forcedConfirmationMinConfidence: talk.forcedConfirmationMinConfidence), true, samples, false)
        }
        // The mask judges each bin against its noise floor: it hears the noise before the
        // utterance too, as far as the history holds it, and only the utterance is decoded,
        // with the audio the endpointer heard after it (its trailing silence, 0.1 s past the
        // end it reports, in a file as live): hearing the noise, it ends an utterance on a
        // weak last consonant that the masked audio keeps (BENCHMARKS.md).
        let heard = max(historyStart, range.lowerBound - noiseContextSamples)..<max(range.upperBound, min(position, endpointed))
        if noisy, steady, let steadyNoise = recognizer.options.steadyNoiseMask, steadyNoise.isFor(raw(heard), sampleRate: recognizer.sampleRate) {
            recognizer.explain("steady noise the mask is for: through the steady-noise mask, a copy per floor, which must agree")
            return (try decodeThroughMask(raw(heard), startSample: range.lowerBound, steadyNoise.mask, floors: steadyNoise.floors,
                                          dropping: range.lowerBound - heard.lowerBound, agreement: steadyNoise.copyAgreement,
                                          tieBreak: steadyNoise.tieBreakMinConfidence.map { (samples, $0) }), true, samples, true)
        }
        let utterance = try recognizer.decodeUtterance(samples, startSample: range.lowerBound, noisy: noisy, steadyNoise: steady,
                                                       quietFloored: { noisy ? nil : quietFloored(raw(range)) })
        return (utterance, noisy, samples, false)
    }

    /// The utterance in `raw` decoded once per masked copy (one per floor), each copy judged and
    /// prepared as any audio is (`prepared`), with a suppressor of its own; the result the copies
    /// agree on (`CommandRecognizer.agreed`, as `agreement` asks). While the copy at the first
    /// floor of the next of `mildFloorSteps` sounds clean, that step's copies are decoded instead
    /// (`BackgroundTalkMask.mildFloorSteps`).
    /// `dropping` samples at the start are masked but not decoded. When they disagree and every
    /// copy was judged noisy, the one command a copy heard is taken if at least
    /// `loneCopyMinConfidence` sure (`CommandRecognizer.loneCommand`;
    /// `BackgroundTalkMask.loneCopyMinConfidence`). Failing that, at `floors` (no milder step), a
    /// command one copy heard at least `forcedConfirmationMinConfidence` sure is taken when every
    /// other copy's refused forced choice named it (`CommandRecognizer.confirmedByForcedChoice`).
    /// Copies that disagree, one of them a command, are settled by decoding `tieBreak`'s samples
    /// (the utterance unmasked, in steady noise) when given: the command one copy shares with it,
    /// at the lower of their confidences, if that is at least its `minConfidence`
    /// (`SteadyNoiseMask.tieBreakMinConfidence`).
    private func decodeThroughMask(_ raw: ArraySlice<Int16>, startSample: Int, _ mask: TalkMask, floors: [Double], mildFloorSteps: [[Double]] = [],
                                   dropping: Int = 0, agreement: CopyAgreement, loneCopyMinConfidence: Double? = nil,
                                   forcedConfirmationMinConfidence: Double? = nil, tieBreak: (unmasked: ArraySlice<Int16>, minConfidence: Double)? = nil) throws(HeedError) -> Utterance? {
        var results: [Utterance?] = []
        var everyCopyNoisy = true
        // One pass of the network gives every floor's copy; which of them are decoded is decided on
        // them. The copy not decoded costs only its synthesis: keeping the spectrum to make copies
        // later would hold it through the decodes, at the peak of a noisy run's memory.
        var masked = floors
        for floor in mildFloorSteps.joined() where !masked.contains(floor) { masked.append(floor) }
        var copies: [Double: [Int16]] = [:]
        do {
            for (copy, floor) in zip(try mask.masked(raw, floors: masked), masked) { copies[floor] = Array(copy.dropFirst(dropping)) }
        } catch { throw HeedError(.configuration, error.description) }
        var decoded = floors
        for step in mildFloorSteps {
            guard let first = step.first, let copy = copies[first], !isNoisy(copy[...]) else { break }
            recognizer.explain("the copy at floor \(first) sounds clean, the background talk mild: "
                               + "copies at floors \(step.map { "\($0)" }.joined(separator: ", ")) instead")
            decoded = step
        }
        for floor in decoded {
            let copy = copies[floor]!
            let (samples, noisy, steady) = prepared(copy[...], denoised: { denoisedAlone(copy) })
            everyCopyNoisy = everyCopyNoisy && noisy
            let result = try recognizer.explaining(under: "copy at floor \(floor): ") { () throws(HeedError) in
                recognizer.explain(Self.judgement(noisy: noisy, steady: steady))
                let result = try recognizer.decodeUtterance(samples, startSample: startSample, noisy: noisy, steadyNoise: steady,
                                                            quietFloored: { noisy ? nil : quietFloored(copy[...]) })
                recognizer.explain("gives \(CommandRecognizer.describe(result))")
                return result
            }
            results.append(result)
        }
        let agreed = CommandRecognizer.agreed(results, by: agreement)
        if recognizer.onExplanation != nil, results.contains(where: { $0?.understood == true }) {
            let forced = agreement == .meaning(withForcedChoice: false) && results.contains { $0?.isForcedChoice == true }
            let how = agreement == .words ? " on the words"
                : " (on the words, or on the meaning at \(CommandRecognizer.otherWordsMinConfidence) or more\(forced ? ", which a forced choice cannot give" : ""))"
            recognizer.explain(agreed?.understood == true ? "the copies agree: \(CommandRecognizer.describe(agreed))"
                               : "the copies do not agree\(how): not understood")
        }
        if agreed?.understood != true, let minimum = loneCopyMinConfidence, everyCopyNoisy,
           let lone = CommandRecognizer.loneCommand(results, minConfidence: minimum) {
            recognizer.explain("every copy sounds noisy and only one heard a command, at \(CommandRecognizer.formatted(minimum)) or more: "
                               + "taken, \(CommandRecognizer.describe(lone))")
            return lone
        }
        if agreed?.understood != true, let minimum = forcedConfirmationMinConfidence, decoded == floors,
           let confirmed = CommandRecognizer.confirmedByForcedChoice(results, minConfidence: minimum) {
            recognizer.explain("one copy heard a command at \(CommandRecognizer.formatted(minimum)) or more, and the others' forced choice "
                               + "named it too, though refused: taken, \(CommandRecognizer.describe(confirmed))")
            return confirmed
        }
        guard let tieBreak, agreed?.understood != true, results.contains(where: { $0?.understood == true }),
              let unmasked = try recognizer.decodeUtterance(tieBreak.unmasked, startSample: startSample, noisy: true, steadyNoise: true),
              unmasked.understood,
              var taken = results.compactMap({ $0 }).first(where: { $0.understood && $0.meansTheSame(as: unmasked) }) else { return agreed }
        taken.confidence = min(taken.confidence, unmasked.confidence)
        recognizer.explain("the unmasked decode breaks the tie: \(CommandRecognizer.describe(unmasked))"
                           + (taken.confidence >= tieBreak.minConfidence ? ", taken" : ", below --steady-mask-tie-break: not understood"))
        return taken.confidence >= tieBreak.minConfidence ? taken : agreed
    }

    /// How audio was judged (`audio`, `prepared`), for the account of a decode (`CommandRecognizer.explain`).
    private static func judgement(noisy: Bool, steady: Bool) -> String {
        noisy ? (steady ? "noisy, the noise steady" : "noisy, the noise changing") : "clean"
    }

    /// `samples` through a suppressor of their own, as the stream's is set up. It hears them
    /// twice and the second pass is kept: the first settles its noise estimate, which the
    /// stream's suppressor has from the audio before.
    private func denoisedAlone(_ samples: [Int16]) -> ArraySlice<Int16>? {
        let options = recognizer.options
        guard let method = options.noiseSuppression, let suppressor = NoiseSuppressor(method, sampleRate: recognizer.sampleRate) else { return nil }
        var highPass = options.suppressorHighPassCutoff.map { HighPassFilter(cutoff: $0, sampleRate: recognizer.sampleRate) }
        let input = highPass == nil ? samples : highPass!.process(samples[...])
        _ = suppressor.process(input)
        _ = suppressor.flush()
        return (suppressor.process(input) + suppressor.flush())[...]
    }

    private func raw(_ range: Range<Int>) -> ArraySlice<Int16> {
        history[(range.lowerBound - historyStart)..<(range.upperBound - historyStart)]
    }

    /// The stream's samples in `range` as the decoder should get them, and whether they are
    /// noisy (the quietest tenth within `noiseSuppressionRangeDB` of the peak): then denoised,
    /// over a masking floor (`maskingNoiseBelowPeakDB`), otherwise raw, so clean speech reaches
    /// the decoder untouched (or over the quiet floor when it is not only a second opinion,
    /// `quietFloorDoubtBelowConfidence`). `steadyNoise`:
    /// noisy, denoised, and the noise steady enough to adapt the acoustic model to
    /// (`CommandRecognizer.isSteadyNoise`), or clean over the quiet floor; not judged for a partial
    /// result, which is decoded with the trained model.
    private func audio(_ range: Range<Int>, judgingNoise: Bool = true) -> (samples: ArraySlice<Int16>, noisy: Bool, steadyNoise: Bool) {
        prepared(raw(range), denoised: { suppressor == nil ? nil : denoised[range.lowerBound - historyStart..<range.upperBound - historyStart] },
                 judgingNoise: judgingNoise)
    }

    /// At a pause in speech (the audio in `range` so far), holds the endpointer open for
    /// `SteadyNoiseMask.trailingSilence` when the utterance will go through the steady-noise mask
    /// (`decodeAudio`) and the noise is strong and broadband. The endpointer hears the denoised
    /// audio and ends a weak last consonant early ("pause" inside its /z/); the mask keeps it, but
    /// only if it hears the audio after the end. The end reported stays where it was; the result
    /// comes that much later.
    private mutating func holdOpenInSteadyNoise(_ range: Range<Int>) {
        guard let steadyNoise = recognizer.options.steadyNoiseMask, steadyNoise.trailingSilence != nil,
              endpointer.heldTrailingSilence == nil, suppressor != nil, recognizer.options.maskingNoiseBelowPeakDB != nil,
              isNoisy(raw(range)), recognizer.isSteadyNoise(raw(range)) else { return }
        let heard = raw(max(historyStart, range.lowerBound - noiseContextSamples)..<range.upperBound)
        if let silence = steadyNoise.trailingSilence(over: heard, sampleRate: recognizer.sampleRate) {
            endpointer.holdOpen(trailingSilence: silence)
        }
    }

    /// Whether `raw` is noisy: its quietest tenth within `noiseSuppressionRangeDB` of its peak.
    private func isNoisy(_ raw: ArraySlice<Int16>) -> Bool {
        guard let limit = recognizer.options.noiseSuppressionRangeDB,
              let range = CommandRecognizer.dynamicRange(of: raw, sampleRate: recognizer.sampleRate) else { return false }
        return range < limit
    }

    /// `raw` as the decoder should get it (see `audio`); `denoised` gives the same samples
    /// through the suppressor (nil: none).
    private func prepared(_ raw: ArraySlice<Int16>, denoised: () -> ArraySlice<Int16>?,
                          judgingNoise: Bool = true) -> (samples: ArraySlice<Int16>, noisy: Bool, steadyNoise: Bool) {
        guard isNoisy(raw) else {
            guard recognizer.options.quietFloorDoubtBelowConfidence == nil, let floored = quietFloored(raw) else { return (raw, false, false) }
            return (floored, false, judgingNoise)
        }
        guard let suppressed = denoised() else { return (raw, true, false) }
        // Noise adaptation was measured on the denoised audio over the masking floor only.
        guard let below = recognizer.options.maskingNoiseBelowPeakDB, let masked = floored(suppressed, below: below) else { return (suppressed, true, false) }
        return (masked, true, judgingNoise && recognizer.isSteadyNoise(raw))
    }

    /// Clean `raw` over the quiet floor (`quietFloorBelowPeakDB`), or nil: no floor, or a burst of
    /// clatter in it, for which the floor was measured to cost commands.
    private func quietFloored(_ raw: ArraySlice<Int16>) -> ArraySlice<Int16>? {
        guard let below = recognizer.options.quietFloorBelowPeakDB, !recognizer.holdsBurst(raw) else { return nil }
        return floored(raw, below: below)
    }

    /// `samples` over low-passed noise `below` dB under their loudest 10 ms frame (`MaskingNoise`).
    private func floored(_ samples: ArraySlice<Int16>, below: Double) -> ArraySlice<Int16>? {
        guard let peak = CommandRecognizer.frameLevels(samples, frame: recognizer.sampleRate / 100).max() else { return nil }
        return MaskingNoise.added(to: samples, level: MaskingNoise.rms(ofLevelDB: peak - below), sampleRate: recognizer.sampleRate)[...]
    }

    private mutating func trimHistory(before sample: Int) {
        let drop = min(sample, position) - historyStart
        guard drop > 0 else { return }
        history.removeFirst(drop)
        if suppressor != nil { denoised.removeFirst(drop) }
        historyStart += drop
    }
}
