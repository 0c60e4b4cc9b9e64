import Foundation
import HeedAudio
import HeedIntents
import HeedRecognition

/// What to listen for: the command phrases (with a garbage model for everything else), or a
/// hand-written JSGF grammar that is decoded without intent matching.
public enum Vocabulary: Sendable {
    /// Command phrases (usually the built-ins) and intents from contexts, with rejection.
    case commands(CommandSet, contexts: [Context] = [])
    case jsgf(URL)

    /// The intent a word sequence carries: the command phrases first, then each context.
    func match(_ words: [String]) -> Intent? {
        guard case .commands(let commands, let contexts) = self else { return nil }
        if let intent = commands.match(words) { return intent }
        for context in contexts { if let intent = context.match(words) { return intent } }
        return nil
    }
}

/// Turns audio into utterances: endpointing, decoding against the active grammar, intent matching.
///
/// Nothing is decoded without an `Authorization` for speech recognition, re-checked before
/// every utterance, so a revoked permission stops decoding within a second.
///
/// One instance decodes one stream at a time; it is not thread-safe.
public final class CommandRecognizer {
    public let options: RecognizerOptions
    private let authorization: Authorization
    /// Samples handed to the decoder so far (tests use it to prove the gate holds).
    public private(set) var samplesDecoded = 0
    let decoder: Decoder
    private var vocabulary: Vocabulary
    /// Every word a command or context can produce; anything else decoded is garbage.
    private(set) var commandWords: Set<String> = []
    static let phoneWordPrefix = "~"
    static let commandSearch = "commands"
    /// The same commands with cheaper garbage, for utterances heard through noise.
    static let noisyCommandSearch = "commands-in-noise"
    /// The noisy search whose phrases can also be left part-way (`noisyGarbageInsidePhrase`),
    /// for the first decode of a noisy utterance.
    static let noisyPartialCommandSearch = "commands-in-noise-partial"
    /// A free loop of phones, the yardstick of utterance verification.
    static let phoneLoopSearch = "phone-loop"
    /// The command paths alone, for a noisy utterance's forced choice (`forcedChoiceMarginPerFrame`).
    static let forcedChoiceSearch = "commands-forced"
    private var hasNoisySearch = false
    /// The word graph of `commandSearch` (nil for a JSGF vocabulary), for `exportCommandSearch`.
    private var commandSearchGrammar: Grammar?
    private var hasNoisyPartialSearch = false
    private var hasForcedChoiceSearch = false
    private var selectedSearch = commandSearch
    /// What the next utterance is decoded against (a dialogue's question narrows it), and the
    /// phrases that answer it; `answerSearch` is nil while listening for commands.
    public private(set) var expectation = Conversation.Expectation.command
    private var answerPhrases: Set<[String]> = []
    private var answerSearch: String?

    /// The rate the decoder's acoustic model expects; everything is converted to it.
    public var sampleRate: Int { decoder.sampleRate }

    /// Receives, line by line, how each utterance is decided (`explain`); nil: no account is made.
    public var onExplanation: ((String) -> Void)?
    /// Put before each line of the account: the masked copy being decoded (`explaining`).
    var explanationScope = ""

    public init(vocabulary: Vocabulary = .commands(.builtins), options: RecognizerOptions = .init(),
                authorization: Authorization) throws(HeedError) {
        precondition(authorization.service == .speechRecognition, "decoding needs a speech-recognition authorization")
        do { try authorization.verifyNow() } catch { throw HeedError(error) }
        self.authorization = authorization
        self.options = options
        self.vocabulary = vocabulary
        do {
            decoder = try Decoder(configuration: options.decoder)
            // A profile still being learned moves the model only once it has heard enough.
            if let speaker = options.speaker, !options.learnsSpeaker || speaker.phrases >= options.speakerLearningMinPhrases {
                try decoder.apply(speaker)
            }
            if options.learnsSpeaker {
                var learning: SpeakerEnrollment
                if let speaker = options.speaker {
                    learning = try SpeakerEnrollment(for: decoder, continuing: speaker)
                } else {
                    learning = try SpeakerEnrollment(for: decoder)
                }
                // A few commands teach a few phones: the rest must move with the speaker too.
                learning.globalPriorFrames = 20
                speakerLearning = learning
            }
        } catch { throw HeedError(error) }
        switch vocabulary {
        case .commands(let commands, let contexts):
            baseCommands = commands
            self.contexts = try ContextCompiler.prepare(contexts, for: decoder)
            try installCommandSearches(commands)
        case .jsgf(let url):
            do { try decoder.addJSGF(file: url, named: Self.commandSearch) } catch { throw HeedError(error) }
        }
        do { try decoder.select(Self.commandSearch) } catch { throw HeedError(error) }
        guard decoder.sampleRate == options.endpointer.sampleRate else {
            throw HeedError(.configuration, "the acoustic model expects \(decoder.sampleRate) Hz; the endpointer is set for \(options.endpointer.sampleRate) Hz")
        }
        // Streams build their own suppressor; one that cannot run at this rate must not quietly leave them without.
        if let method = options.noiseSuppression, NoiseSuppressor(method, sampleRate: decoder.sampleRate) == nil {
            throw HeedError(.configuration, "the noise suppressor \(method) cannot run at the acoustic model's \(decoder.sampleRate) Hz")
        }
    }

    /// What `learnsSpeaker` has gathered so far, and the profile it made of it (nil until the first
    /// command is learned).
    var speakerLearning: SpeakerEnrollment?
    public internal(set) var learnedSpeaker: SpeakerProfile?

    /// The commands given at start, without shortcuts, and the contexts respelled for the dictionary.
    private var baseCommands = CommandSet()
    private var contexts: [Context] = []

    /// Builds the command searches (normal and noisy) for `commands` plus the contexts, dropping
    /// any built before first, so that the new ones take the old ones' memory. The command paths and the garbage units are worked out once; the noisy
    /// search differs in what its garbage paths cost, and in leaving out a one-word command's
    /// accent forms that are one phone from another one-word command (see
    /// `confusableOneWordVariantsInNoise`).
    private func installCommandSearches(_ commands: CommandSet) throws(HeedError) {
        let rebuilding = commandSearchGrammar != nil
        if rebuilding {
            for name in [Self.commandSearch, Self.phoneLoopSearch, Self.forcedChoiceSearch, Self.noisyCommandSearch, Self.noisyPartialCommandSearch] {
                decoder.remove(search: name)
            }
            // Nothing is selected now: the next `use` must select, even if building fails below.
            selectedSearch = ""
        }
        grammarGeneration += 1
        vocabulary = .commands(commands, contexts: contexts)
        commandWords = Set(commands.phrases.joined()).union(contexts.flatMap(\.vocabulary))
        var commandGraph = Grammar()
        for phrase in commands.phrases { commandGraph.addPhrase(phrase) }
        for context in contexts { ContextCompiler.add(context, to: &commandGraph) }
        commandGraph = commandGraph.minimized()
        let withoutVariants = commandGraph
        addAccentVariants(to: &commandGraph)
        let garbage = Self.garbageUnits(commandWords: commandWords, decoder: decoder)
        do {
            let clean = Self.withGarbage(commandGraph, garbage, wordPenalty: options.garbageWordPenalty, phonePenalty: options.garbagePhonePenalty)
            try decoder.add(clean, named: Self.commandSearch)
            commandSearchGrammar = clean
            let verifies = options.verificationMarginPerFrame != nil || options.noisyVerificationMarginPerFrame != nil
            if verifies || options.forcedChoiceMarginPerFrame != nil {
                var loop = Grammar()
                loop.addGarbageLoop(units: garbage.phones, penalty: 1)
                try decoder.add(loop, named: Self.phoneLoopSearch)
            }
            var noisyGraph = withoutVariants
            addAccentVariants(to: &noisyGraph, confusableOneWordForms: options.confusableOneWordVariantsInNoise)
            if options.forcedChoiceMarginPerFrame != nil {
                try decoder.add(noisyGraph, named: Self.forcedChoiceSearch)
                hasForcedChoiceSearch = true
            }
            if let penalty = options.noisyGarbageWordPenalty {
                let phonePenalty = options.garbagePhonePenalty * penalty / options.garbageWordPenalty
                try decoder.add(Self.withGarbage(noisyGraph, garbage, wordPenalty: penalty, phonePenalty: phonePenalty),
                                named: Self.noisyCommandSearch)
                hasNoisySearch = true
                if let entry = options.noisyGarbageInsidePhrase {
                    try decoder.add(Self.withGarbage(noisyGraph, garbage, wordPenalty: penalty, phonePenalty: phonePenalty, entryFromInside: entry),
                                    named: Self.noisyPartialCommandSearch)
                    hasNoisyPartialSearch = true
                }
            }
            if rebuilding {
                try decoder.select(Self.commandSearch)
                selectedSearch = Self.commandSearch
            }
        } catch {
            throw HeedError(error)
        }
    }

    /// The search clean speech is decoded with (commands, contexts, accent variants and the
    /// garbage loops) as a PocketSphinx FSG file, and a CMUdict-format dictionary of its words
    /// with every pronunciation the decoder uses: the same language for plain PocketSphinx
    /// (`heed context export`; `make bench` compares the two on it). nil for a JSGF vocabulary.
    public func exportCommandSearch() -> (fsg: String, dictionary: String)? {
        guard let grammar = commandSearchGrammar else { return nil }
        return (grammar.fsgText(name: Self.commandSearch), decoder.dictionaryText(for: grammar.words.sorted()))
    }

    // MARK: Dialogue

    /// A conversation over this recognizer's contexts (their words as the decoder spells them),
    /// or nil when no intent has a dialogue.
    public func makeConversation() -> Conversation? {
        let conversation = Conversation(contexts: contexts)
        return conversation.isEmpty ? nil : conversation
    }

    /// Narrows what the next utterances are decoded against: a slot's values (or "cancel"),
    /// yes or no, or back to the commands. Each answer grammar is built the first time.
    public func expect(_ expectation: Conversation.Expectation) throws(HeedError) {
        guard expectation != self.expectation else { return }
        grammarGeneration += 1
        let phrases: [[String]], name: String
        switch expectation {
        case .command:
            self.expectation = .command
            answerSearch = nil
            answerPhrases = []
            return
        case .slot(let type):
            // The last context that defines the type wins, as in `Conversation`.
            let values = contexts.reversed().lazy.compactMap { $0.slots[type] }.first ?? []
            phrases = values.map(\.words) + ConfirmationWords.cancel
            name = "answer:" + type
        case .confirmation:
            phrases = ConfirmationWords.yes + ConfirmationWords.no
            name = "confirmation"
        }
        if !builtAnswerSearches.contains(name) {
            var graph = Grammar()
            for phrase in phrases { graph.addPhrase(phrase) }
            graph = graph.minimized()
            addAccentVariants(to: &graph)
            let garbage = Self.garbageUnits(commandWords: Set(phrases.joined()), decoder: decoder)
            do { try decoder.add(Self.withGarbage(graph, garbage, wordPenalty: options.garbageWordPenalty, phonePenalty: options.garbagePhonePenalty), named: name) } catch {
                throw HeedError(error)
            }
            builtAnswerSearches.insert(name)
        }
        self.expectation = expectation
        answerSearch = name
        answerPhrases = Set(phrases)
    }

    private var builtAnswerSearches: Set<String> = []

    // MARK: Shortcuts

    /// Makes the shortcuts' phrases part of the grammar (replacing the shortcuts set before).
    /// Shortcuts whose words are not in the dictionary, or whose phrase already means something
    /// else, are left out; the returned lines say which and why. Call between utterances.
    @discardableResult
    public func setShortcuts(_ shortcuts: [Shortcut]) throws(HeedError) -> [String] {
        guard case .commands(let installed, _) = vocabulary else { return [] }
        var commands = baseCommands
        var skipped: [String] = []
        let base = Vocabulary.commands(baseCommands, contexts: contexts)
        for shortcut in shortcuts {
            let (words, missing) = ContextCompiler.spell(shortcut.words, for: decoder)
            if !missing.isEmpty {
                skipped.append("shortcut '\(shortcut.id)' left out: not in the pronunciation dictionary: \(missing.joined(separator: ", "))")
            } else if let meaning = base.match(words) ?? commands.match(words), meaning != shortcut.intent {
                skipped.append("shortcut '\(shortcut.id)' left out: '\(shortcut.phrase)' already means \(meaning.name)")
            } else if !words.isEmpty {
                commands.add(.init(intent: shortcut.intent.name, slots: shortcut.intent.slots, phrases: [words]))
            }
        }
        // Building the searches again when nothing changed (no shortcuts, the usual case) would
        // cost 4 MB of memory for nothing: the old searches leave their place in the heap.
        if commands != installed { try installCommandSearches(commands) }
        return skipped
    }

    /// Checks a shortcut before it is donated: its phrase's rules (`PhraseRules`), every word
    /// against the dictionary, and its meaning against the built-ins and `contexts`. Decodes
    /// nothing, so it needs no authorization. Returns warnings.
    public static func check(_ shortcut: Shortcut, others: [Shortcut], vocabulary: Vocabulary = .commands(.builtins),
                             options: RecognizerOptions = .init()) throws -> [String] {
        let decoder: Decoder
        do { decoder = try Decoder(configuration: options.decoder) } catch { throw HeedError(error) }
        var meaning: Intent?
        var missing: [String] = []
        var spelled = shortcut.words
        if case .commands(let commands, let contexts) = vocabulary {
            let prepared = try ContextCompiler.prepare(contexts, for: decoder)
            (spelled, missing) = ContextCompiler.spell(shortcut.words, for: decoder)
            meaning = Vocabulary.commands(commands, contexts: prepared).match(spelled)
        }
        return try PhraseRules.check(shortcut, others: others, meaningElsewhere: meaning, missingWords: missing)
    }

    // MARK: Whole inputs

    /// Decodes a WAV file in any common format.
    public func recognize(file url: URL) throws(HeedError) -> [Utterance] {
        var utterances: [Utterance] = []
        try recognizeEvents(file: url) { if case .utterance(let utterance) = $0 { utterances.append(utterance) } }
        return utterances
    }

    /// Decodes a WAV file a second at a time, handing out each event as soon as it is known, so
    /// a recording of hours takes no more memory than one of seconds. Returns the number of
    /// samples decoded (at `sampleRate`).
    @discardableResult
    public func recognizeEvents(file url: URL, _ onEvent: (UtteranceStream.Event) -> Void) throws(HeedError) -> Int {
        try checkAuthorization()
        var wav: ConvertedWAVStream
        do { wav = try ConvertedWAVStream(contentsOf: url, rate: sampleRate) } catch { throw HeedError(error) }
        var stream = makeStream()
        while true {
            let piece: [Int16]?
            do { piece = try wav.next() } catch { throw HeedError(error) }
            guard let piece else { break }
            try stream.feedEvents(piece).forEach(onEvent)
        }
        try stream.finishEvents().forEach(onEvent)
        return stream.position
    }

    func checkAuthorization() throws(HeedError) {
        do { try authorization.verify() } catch { throw HeedError(error) }
    }

    /// Reads a WAV file and converts it to mono 16-bit samples at the model's rate.
    public func loadAudio(file url: URL) throws(HeedError) -> [Int16] {
        let wav: WAVFile
        do { wav = try WAVFile(contentsOf: url) } catch { throw HeedError(error) }
        return PCM.int16(from: Resampler.convert(wav.samples, from: wav.format.sampleRate, to: sampleRate))
    }

    /// Decodes samples already at `sampleRate`.
    public func recognize(samples: [Int16]) throws(HeedError) -> [Utterance] {
        var stream = makeStream()
        var utterances = try stream.feed(samples)
        utterances += try stream.finish()
        return utterances
    }

    /// Decodes samples already at `sampleRate`, with every event (dialogue steps included).
    public func recognizeEvents(samples: [Int16]) throws(HeedError) -> [UtteranceStream.Event] {
        var stream = makeStream()
        return try stream.feedEvents(samples) + stream.finishEvents()
    }

    /// A stream that decodes audio as it arrives, utterance by utterance. A live stream
    /// (`decodesAhead`) decodes each utterance while the endpointer still waits for the end of
    /// its trailing silence, so the result comes out as soon as the silence is confirmed; when
    /// speech resumes instead, that decode was wasted CPU. Files gain nothing from it.
    public func makeStream(decodesAhead: Bool = false) -> UtteranceStream {
        UtteranceStream(recognizer: self, decodesAhead: decodesAhead)
    }

    /// Changes whenever the searches or what is expected change (shortcuts, a dialogue's
    /// question), so a result decoded against the old ones is not used.
    public private(set) var grammarGeneration = 0

    // MARK: Used by UtteranceStream

    /// Decodes one complete utterance that begins at `startSample` of the stream.
    ///
    /// The utterance is decoded in one piece so that cepstral mean normalization uses this
    /// utterance's own mean: the result does not depend on what was decoded before it.
    /// `steadyNoise`: the noise under a noisy utterance (or the floor under a clean one, see
    /// `quietFloorBelowPeakDB`) is steady enough to adapt the acoustic model to (see
    /// `isSteadyNoise`; the stream decides, `UtteranceStream.audio`); each decode then adapts it
    /// to the audio it decodes. `quietFloored`: the same clean samples over the quiet floor, for
    /// its second opinion on a doubtful decode (`quietFloorDoubtBelowConfidence`); asked for only then.
    /// A clean utterance not understood that holds a burst is decoded again with the burst masked
    /// (`masksBursts`); failing that, and when no path took a command, it takes the forced choice.
    func decodeUtterance(_ samples: ArraySlice<Int16>, startSample: Int, noisy: Bool = false, steadyNoise: Bool = false,
                         quietFloored: () -> ArraySlice<Int16>? = { nil }) throws(HeedError) -> Utterance? {
        let plain = try decodeOnce(samples, startSample: startSample, noisy: noisy, steadyNoise: steadyNoise)
        // The burst test only where masking or a forced choice could follow: it looks for voicing.
        lazy var burst = answerSearch == nil && holdsBurst(samples)
        if !noisy, plain.utterance?.understood != true, options.masksBursts, decoder.usesInterleavedGaussians,
           case .commands = vocabulary, burst, let masked = try maskedDecode(samples, startSample: startSample, steadyNoise: steadyNoise) {
            explain("decoded again with its burst of clatter masked: \(Self.describe(masked))")
            return masked
        }
        if !plain.heardCommand, noisy || (hasForcedChoiceSearch && burst) {
            let forced = try forcedChoice(samples, startSample: startSample, steadyNoise: noisy && steadyNoise)
            if let chosen = forced.chosen {
                explain("no path took a command; the forced choice did: \(Self.describe(chosen))")
                return chosen
            }
            guard var unheard = plain.utterance else { return nil }
            unheard.refusedForcedChoice = forced.refused?.intent
            return unheard
        }
        // Commands only: a plain grammar's word sequence (a card game's hands) has no intent to
        // agree on, and dropping a doubtful sequence only loses its right words.
        if noisy, steadyNoise, options.noiseAdaptation != nil, case .commands = vocabulary,
           let doubt = options.adaptedDoubtBelowConfidence, let heard = plain.utterance, heard.understood, heard.confidence < doubt {
            explain("doubtful (confidence below --adapted-doubt \(Self.formatted(doubt))): decoded again with the model as trained")
            let asTrained = try decodeOnce(samples, startSample: startSample, noisy: true, steadyNoise: false).utterance
            if asTrained?.understood == true && asTrained?.intent == heard.intent { return heard }
            explain("the model as trained heard \(Self.describe(asTrained)), not the same command: turned away")
            return heard.rejected
        }
        guard !noisy, plain.heardCommand, let doubt = options.quietFloorDoubtBelowConfidence, let heard = plain.utterance,
              !heard.understood || heard.confidence < doubt, let floored = quietFloored() else { return plain.utterance }
        explain("doubtful: decoded again over the quiet floor (--quiet-floor-doubt)")
        guard let second = try decodeOnce(floored, startSample: startSample, steadyNoise: true).utterance, second.understood,
              !heard.understood || second.confidence > heard.confidence else {
            explain("the first decode stands: \(Self.describe(heard))")
            return heard
        }
        explain("the decode over the floor is taken: \(Self.describe(second))")
        return second
    }

    /// The command a clean utterance holds when decoded again with its bursts masked
    /// (`masksBursts`), if sure enough; nil otherwise.
    private func maskedDecode(_ samples: ArraySlice<Int16>, startSample: Int, steadyNoise: Bool) throws(HeedError) -> Utterance? {
        masksBurstsNow = true
        defer { masksBurstsNow = false; maskedSpan = nil }
        guard let utterance = try decodeOnce(samples, startSample: startSample, steadyNoise: steadyNoise).utterance,
              utterance.understood, utterance.confidence >= options.maskedMinConfidence else { return nil }
        return utterance
    }

    /// The command a noisy utterance (or a clean one with a burst, `holdsBurst`) holds when the
    /// command paths alone are decoded, if it fits nearly as well as the free phone loop
    /// (`forcedChoiceMarginPerFrame`), its N-best list agrees (`forcedChoiceMinConfidence`) and it
    /// was voiced (`chosen`); otherwise the command it named when the N-best list or the margin
    /// refused it (`refused`).
    private func forcedChoice(_ samples: ArraySlice<Int16>, startSample: Int,
                              steadyNoise: Bool) throws(HeedError) -> (chosen: Utterance?, refused: Utterance?) {
        guard hasForcedChoiceSearch, answerSearch == nil, case .commands = vocabulary,
              let margin = options.forcedChoiceMarginPerFrame else { return (nil, nil) }
        // The model may still be adapted to these samples from the decode before: `decode` adapts it again only if not.
        adaptsToNoise = steadyNoise && options.noiseAdaptation != nil
        defer { adaptsToNoise = false }
        try use(search: Self.forcedChoiceSearch, noisy: true)
        let hypothesis = try decode(samples, alternatives: { _ in true })
        try selectSearch(noisy: true)
        let named = interpret(hypothesis, startSample: startSample, sampleCount: samples.count).flatMap { $0.understood ? $0 : nil }
        guard let utterance = named, utterance.confidence >= options.forcedChoiceMinConfidence else {
            explain("forced choice refused: below --forced-choice-confidence \(Self.formatted(options.forcedChoiceMinConfidence))")
            return (nil, named)
        }
        let loop = try phoneLoop(samples, noisy: true)
        let shortfall = self.shortfall(of: hypothesis, against: loop, frames: 0...max(0, hypothesis.frameCount - 1))
        guard shortfall <= margin else {
            explain("forced choice refused: it fits \(Self.formatted(shortfall)) per frame worse than the free phone loop, past --forced-choice-margin \(Self.formatted(margin))")
            return (nil, utterance)
        }
        guard var voiced = voiced(utterance, samples, startSample: startSample), voiced.understood else { return (nil, nil) }
        voiced.isForcedChoice = true
        return (voiced, nil)
    }

    /// One decode of `decodeUtterance`, and whether a command was heard in it before any check
    /// rejected it.
    private func decodeOnce(_ samples: ArraySlice<Int16>, startSample: Int, noisy: Bool = false,
                            steadyNoise: Bool) throws(HeedError) -> (utterance: Utterance?, heardCommand: Bool) {
        adaptsToNoise = steadyNoise && options.noiseAdaptation != nil
        overQuietFloor = !noisy && steadyNoise
        adaptedSpan = nil
        defer { adaptsToNoise = false; overQuietFloor = false }
        let decoded = try decodeWithRetries(samples, startSample: startSample, noisy: noisy)
        return (voiced(decoded.utterance, samples, startSample: startSample), decoded.heardCommand)
    }

    /// Whether `samples` hold a burst of loud unvoiced sound (`quietFloorMaxUnvoicedSeconds`),
    /// within 10 dB of their loudest voiced frame: clatter, not speech.
    func holdsBurst(_ samples: ArraySlice<Int16>) -> Bool {
        Voicing.longestLoudUnvoicedRun(in: samples, sampleRate: sampleRate, withinDB: 10) >= options.quietFloorMaxUnvoicedSeconds - 0.001
    }

    /// For each decoder frame of `samples`, whether a burst (`holdsBurst`) covers it, widened by
    /// two frames before and four after: a frame's features take in its neighbours' (deltas),
    /// and the voicing test's windows are longer than the decoder's. Empty when there is no burst.
    func burstFrames(_ samples: ArraySlice<Int16>) -> [Bool] {
        let runs = Voicing.loudUnvoicedRuns(in: samples, sampleRate: sampleRate, withinDB: 10,
                                            minimumFrames: Int((options.quietFloorMaxUnvoicedSeconds * 100).rounded()))
        guard let last = runs.last else { return [] }
        var masked = [Bool](repeating: false, count: max(samples.count / (sampleRate / decoder.frameRate), last.upperBound) + 4)
        for run in runs {
            for frame in max(0, run.lowerBound - 2)..<min(masked.count, run.upperBound + 4) { masked[frame] = true }
        }
        return masked
    }

    /// Whether the noise in `raw` (an utterance as it was heard, before the suppressor) is steady
    /// enough for `noiseAdaptation`: not background talk.
    func isSteadyNoise(_ raw: ArraySlice<Int16>) -> Bool {
        guard let adaptation = options.noiseAdaptation,
              let variability = decoder.noiseVariability(of: raw, quietest: adaptation.noiseVariabilityQuietest) else { return false }
        return variability < adaptation.maxNoiseVariability
    }

    /// The utterance, or not understood when the stretch it was heard in has less voiced speech
    /// than `minVoicedSeconds`.
    private func voiced(_ utterance: Utterance?, _ samples: ArraySlice<Int16>, startSample: Int) -> Utterance? {
        guard let utterance, utterance.understood, let minimum = options.minVoicedSeconds else { return utterance }
        let lower = max(samples.startIndex, samples.startIndex + Int(utterance.start * Double(sampleRate)) - startSample)
        let upper = min(samples.endIndex, samples.startIndex + Int(utterance.end * Double(sampleRate)) - startSample)
        // A millisecond of slack for rounding: the duration is a whole number of 10 ms frames.
        guard lower >= upper || Voicing.voicedDuration(in: samples[lower..<upper], sampleRate: sampleRate, enough: minimum) < minimum - 0.001
        else { return utterance }
        explain("less than \(Self.formatted(minimum)) s of it is voiced (--min-voiced): turned away")
        return utterance.rejected
    }

    /// The utterance, or not understood when a stretch of `hypothesis` taken for silence holds
    /// `maxVoicedSilenceSeconds` of voiced speech; for utterances with real pauses only (in noise,
    /// what is taken for silence is the noise, and background talk or hum can be voiced).
    private func withoutSpeechInSilence(_ utterance: Utterance?, _ hypothesis: Hypothesis, _ samples: ArraySlice<Int16>) -> Utterance? {
        guard let utterance, utterance.understood, answerSearch == nil, case .commands = vocabulary,
              let limit = options.maxVoicedSilenceSeconds else { return utterance }
        let voiced = Self.voicedSpeechInSilence(hypothesis.words, samples, frameLength: sampleRate / decoder.frameRate,
                                                sampleRate: sampleRate, enough: limit)
        guard voiced >= limit else { return utterance }
        explain("\(Self.formatted(voiced)) s of voiced speech lies in what it took for a pause (--max-voiced-silence): turned away")
        return utterance.rejected
    }

    /// The passes of `decodeUtterance`: the whole utterance, then (when that was not a command)
    /// the words said over background talk, then only the loudest stretch.
    private func decodeWithRetries(_ samples: ArraySlice<Int16>, startSample: Int,
                                   noisy: Bool) throws(HeedError) -> (utterance: Utterance?, heardCommand: Bool) {
        let partial = noisy && hasNoisyPartialSearch && answerSearch == nil
        try partial ? use(search: Self.noisyPartialCommandSearch, noisy: true) : selectSearch(noisy: noisy)
        let hypothesis = try decode(samples, alternatives: alternativesWanted(noisy: noisy, samples))
        let whole = interpret(hypothesis, startSample: startSample, sampleCount: samples.count)
        let first = try verified(noisy ? whole : withoutSpeechInSilence(whole, hypothesis, samples), hypothesis, samples, noisy: noisy)
        try selectSearch(noisy: noisy)
        if noisy, first?.understood != true,
           let spoken = try commandSpokenOverBackground(hypothesis, decodedInParts: partial, samples, startSample: startSample) {
            explain("a command stands out above the background: \(Self.describe(spoken))")
            return (spoken, true)
        }
        // Background speech (a café's babble, a radio) keeps the endpointer open around the
        // command, and the garbage path that has to explain it then swallows the command too.
        // When the whole was not understood, decode again only the part within
        // `foregroundMarginDB` of the utterance's loudest frame: the person speaking to the device.
        // Over the quiet floor, only when there is more than the floor to cut away (a burst of
        // clatter): otherwise the retry gained nothing, cost a fifth of the CPU of clean speech and
        // let a near miss through (BENCHMARKS.md, "Cheaper over the floor").
        guard case .commands = vocabulary, first?.understood != true, let margin = options.foregroundMarginDB,
              let foreground = Self.foreground(of: samples, marginDB: margin, sampleRate: sampleRate),
              !overQuietFloor || holdsSoundOverFloor(samples, outside: foreground) else { return (first, whole?.understood == true) }
        explain("decoded again, only the stretch within \(String(format: "%g", margin)) dB of its loudest frame")
        let foregroundHypothesis = try decode(samples[foreground], alternatives: alternativesWanted(noisy: noisy, samples[foreground]))
        let foregroundWhole = interpret(foregroundHypothesis, startSample: foreground.lowerBound - samples.startIndex + startSample,
                                        sampleCount: foreground.count)
        let second = try verified(foregroundWhole, foregroundHypothesis, samples[foreground], noisy: noisy)
        return (second?.understood == true ? second : first, whole?.understood == true || foregroundWhole?.understood == true)
    }

    /// How far above the quiet floor a 10 ms frame has to be to count as sound over it.
    static let floorClearanceDB = 6.0

    /// Whether `samples`, decoded over the quiet floor (`quietFloorBelowPeakDB` under their
    /// loudest 10 ms frame), hold a frame outside `kept` `floorClearanceDB` or more over the floor.
    private func holdsSoundOverFloor(_ samples: ArraySlice<Int16>, outside kept: Range<Int>) -> Bool {
        guard let below = options.quietFloorBelowPeakDB else { return true }
        let frame = sampleRate / 100
        let levels = Self.frameLevels(samples, frame: frame)
        guard let peak = levels.max() else { return false }
        let threshold = peak - below + Self.floorClearanceDB
        return levels.indices.contains { index in
            let start = samples.startIndex + index * frame
            return (start + frame <= kept.lowerBound || start >= kept.upperBound) && levels[index] >= threshold
        }
    }

    /// A command said over background speech (a café, a radio). The garbage path that explains
    /// the background makes the whole utterance "not a command", but the person speaking to the
    /// device is louder than the voices behind them: when the decoded words within
    /// `foregroundWordMarginDB` of the loudest word are next to each other and form a command,
    /// and every other word is quieter than that, the command is what was said. nil otherwise.
    /// A hypothesis `decodedInParts` (phrases could be left part-way) is decoded again with
    /// whole phrases first: babble otherwise takes the command's quieter last words.
    private func commandSpokenOverBackground(_ hypothesis: Hypothesis, decodedInParts: Bool, _ samples: ArraySlice<Int16>,
                                             startSample: Int) throws(HeedError) -> Utterance? {
        guard answerSearch == nil, case .commands = vocabulary, options.foregroundWordMarginDB != nil else { return nil }
        let hypothesis = decodedInParts ? try decode(samples, alternatives: { _ in true }) : hypothesis
        guard let (run, intent) = commandOverBackground(in: hypothesis, samples) else { return nil }
        let spoken = hypothesis.spokenWords
        let words = spoken[run].map { Self.baseWord($0.word) }
        // The garbage that is cheap enough to explain the background also takes a share of the
        // command's own sounds, so the loud words are sometimes the wrong command. They count only
        // when decoding their stretch alone, against the grammar for clean speech, hears them too.
        let frames = spoken[run.lowerBound].startFrame...spoken[run.upperBound].endFrame
        let stretch = Self.padded(frames: frames, frameLength: sampleRate / decoder.frameRate, in: samples, sampleRate: sampleRate)
        guard !stretch.isEmpty else { return nil }
        try use(search: Self.commandSearch, noisy: true)
        let alone = try decode(samples[stretch], alternatives: { _ in true })
        try selectSearch(noisy: true)
        guard alone.reachedFinalState, alone.spokenWords.map({ Self.baseWord($0.word) }).containsRun(words) else { return nil }
        // Confidence: the share of the N-best mass that hears the same words in the foreground
        // (from the stretch alone when the whole utterance's search ended without a list).
        let confidence = Self.confidence(of: words, among: hypothesis.alternatives.isEmpty ? alone.alternatives : hypothesis.alternatives) {
            $0.map(Self.baseWord).containsRun(words) ? "foreground" : "other"
        }
        guard confidence >= options.minConfidence else { return nil }
        let utterance = Utterance(start: time(ofFrame: frames.lowerBound, startSample: startSample),
                                  end: time(ofFrame: frames.upperBound + 1, startSample: startSample),
                                  transcript: words.joined(separator: " "), intent: intent, understood: true, confidence: confidence)
        let checked = try verified(utterance, hypothesis, frames: frames, samples, noisy: true)
        return checked?.understood == true ? checked : nil
    }

    /// The command said over background talk in `hypothesis`, decoded from `samples` (see the
    /// static `commandOverBackground`), or nil.
    private func commandOverBackground(in hypothesis: Hypothesis, _ samples: ArraySlice<Int16>) -> (run: ClosedRange<Int>, intent: Intent)? {
        guard answerSearch == nil, case .commands = vocabulary, let margin = options.foregroundWordMarginDB else { return nil }
        let spoken = hypothesis.spokenWords
        let frameLevels = Self.frameLevels(samples, frame: sampleRate / decoder.frameRate)
        // A word's level: the 90th percentile of its frames, so one click does not make it loud.
        let levels = spoken.map { word -> Double in
            let frames = frameLevels[min(frameLevels.count, word.startFrame)..<min(frameLevels.count, word.endFrame + 1)].sorted()
            return frames.isEmpty ? -.infinity : frames[frames.count * 9 / 10]
        }
        return Self.commandOverBackground(words: spoken.map { Self.baseWord($0.word) }, levels: levels, marginDB: margin,
                                          belowQuietestDB: options.backgroundBelowCommandDB, match: vocabulary.match)
    }

    /// The command said over background talk in a decoded utterance: the longest run of
    /// consecutive `words` that forms a command while every word outside it is quieter, at least
    /// `marginDB` below the run's loudest word and `belowQuietestDB` below its quietest. Function
    /// words inside a command ("the", "a") are often as quiet as the voices behind it, so the run
    /// is not required to be loud throughout; the words around it must be quieter than all of it,
    /// which a near miss said by the same voice ("make me a sandwich") is not. The run leaves at
    /// least one word out: a command that is the whole utterance needs no background removed.
    static func commandOverBackground(words: [String], levels: [Double], marginDB: Double, belowQuietestDB: Double,
                                      match: ([String]) -> Intent?) -> (run: ClosedRange<Int>, intent: Intent)? {
        precondition(words.count == levels.count, "one level per word")
        guard words.count > 1 else { return nil }
        for length in stride(from: words.count - 1, through: 1, by: -1) {
            for start in 0...(words.count - length) {
                let run = start...(start + length - 1)
                guard let intent = match(Array(words[run])) else { continue }
                let loudest = levels[run].max()!, quietest = levels[run].min()!
                let othersQuieter = words.indices.allSatisfy {
                    run.contains($0) || (levels[$0] <= loudest - marginDB && levels[$0] <= quietest - belowQuietestDB)
                }
                if othersQuieter { return (run, intent) }
            }
        }
        return nil
    }

    /// The utterance, or not understood when verification finds its acoustic fit too far below
    /// a free phone loop's on the same samples (`verificationMarginPerFrame`). `frames` limits the
    /// comparison to the frames the command was heard in (default: all).
    private func verified(_ utterance: Utterance?, _ hypothesis: Hypothesis, frames: ClosedRange<Int>? = nil,
                          _ samples: ArraySlice<Int16>, noisy: Bool) throws(HeedError) -> Utterance? {
        let frames = frames ?? 0...max(0, hypothesis.frameCount - 1)
        let words = hypothesis.spokenWords.filter { frames.contains($0.startFrame) }
        guard let utterance, utterance.understood, answerSearch == nil, case .commands = vocabulary,
              let margin = noisy ? options.noisyVerificationMarginPerFrame : options.verificationMarginPerFrame,
              words.count >= options.verificationMinWords
        else { return utterance }
        let loop = try phoneLoop(samples, noisy: noisy)
        // The loop was scored by the same model as the command: adapted to these samples or not.
        let adaptedMargin = decoder.isAdaptedToNoise ? options.adaptedVerificationMarginPerFrame : nil
        let shortfall = self.shortfall(of: hypothesis, against: loop, frames: frames)
        if shortfall > (adaptedMargin ?? margin) {
            explain("verification: fits \(Self.formatted(shortfall)) per frame worse than the free phone loop, past the margin \(Self.formatted(adaptedMargin ?? margin)): turned away")
            return utterance.rejected
        }
        guard !noisy, overQuietFloor, let wordMargin = options.wordVerificationMarginPerFrame else { return utterance }
        let worstWord = words.map { self.shortfall(of: hypothesis, against: loop, frames: $0.startFrame...$0.endFrame) }.max() ?? 0
        guard worstWord > wordMargin else { return utterance }
        explain("verification: its worst word fits \(Self.formatted(worstWord)) per frame worse than the phone loop, past \(Self.formatted(wordMargin)): turned away")
        return utterance.rejected
    }

    /// `samples` decoded by the free phone loop, the yardstick of verification and of the forced
    /// choice; the command search is selected again after.
    private func phoneLoop(_ samples: ArraySlice<Int16>, noisy: Bool) throws(HeedError) -> Hypothesis {
        try use(search: Self.phoneLoopSearch, noisy: noisy)
        let loop = try decode(samples, alternatives: { _ in false })
        try selectSearch(noisy: noisy)
        return loop
    }

    /// How far `hypothesis` fits `frames` worse than the free phone loop did, per frame heard:
    /// masked frames (`maskedFrames`, from the decodes of both) fit every path alike.
    private func shortfall(of hypothesis: Hypothesis, against loop: Hypothesis, frames: ClosedRange<Int>) -> Double {
        let heard = frames.count - maskedCount(in: frames)
        return (loop.acousticScore(frames: frames) - hypothesis.acousticScore(frames: frames)) / Double(max(1, heard))
    }

    /// How many of `frames` the last decode masked.
    private func maskedCount(in frames: ClosedRange<Int>) -> Int {
        frames.clamped(to: 0...maskedFrames.count).reduce(0) { $0 + ($1 < maskedFrames.count && maskedFrames[$1] ? 1 : 0) }
    }

    /// What the speech so far sounds like, for live feedback: the utterance up to now decoded the
    /// same way (a separate pass, so the final result is unaffected), command words only.
    func partialTranscript(_ samples: ArraySlice<Int16>, noisy: Bool = false) throws(HeedError) -> String {
        try selectSearch(noisy: noisy)
        guard case .commands = vocabulary else { return try decode(samples, alternatives: { _ in false }).text }
        let known = answerSearch == nil ? commandWords : Set(answerPhrases.joined())
        return try decode(samples, alternatives: { _ in false }).spokenWords.map { Self.baseWord($0.word) }.filter(known.contains).joined(separator: " ")
    }

    /// Noise makes every path through the grammar fit worse, the garbage paths most of all (they
    /// pay per word): non-commands then come out as short commands. Noisy utterances are
    /// decoded against a grammar whose garbage is cheaper (`noisyGarbageWordPenalty`).
    private func selectSearch(noisy: Bool) throws(HeedError) {
        try use(search: answerSearch ?? (noisy && hasNoisySearch ? Self.noisyCommandSearch : Self.commandSearch), noisy: noisy)
    }

    /// Makes `name` the search for the next decode, with the cap on active HMMs for the kind of
    /// audio it will hear.
    private func use(search name: String, noisy: Bool) throws(HeedError) {
        decoder.maxActiveHMMs = noisy ? options.noisyMaxActiveHMMs : options.maxActiveHMMs
        guard name != selectedSearch else { return }
        do { try decoder.select(name) } catch { throw HeedError(error) }
        selectedSearch = name
    }

    /// Which decodes need an N-best list (see `Decoder.endUtterance`): confidence is read from it,
    /// for a command, and in noise for a command the background-talk rule finds inside the path.
    /// Other hypotheses are not weighed against their alternatives. Their lattices are the
    /// costliest of all (long speech through the garbage loops: a tenth of all decoding time on
    /// the quiet suites, more than half in babble), and weighing only ever said how sure a
    /// rejection was, 1.00 for 503 of 512 rejections over every suite.
    private func alternativesWanted(noisy: Bool, _ samples: ArraySlice<Int16>) -> (Hypothesis) -> Bool {
        guard answerSearch == nil, case .commands = vocabulary else { return { _ in true } }
        return { [self] hypothesis in
            vocabulary.match(hypothesis.spokenWords.map { Self.baseWord($0.word) }) != nil
                || (noisy && commandOverBackground(in: hypothesis, samples) != nil)
        }
    }

    /// Set by `decodeUtterance` while it decodes an utterance in steady noise.
    private var adaptsToNoise = false
    /// Whether the utterance being decoded is clean speech over the quiet floor (`quietFloorBelowPeakDB`).
    private var overQuietFloor = false
    /// The samples the model is adapted to now (indices into the utterance's buffer).
    private var adaptedSpan: Range<Int>?
    /// Set by `maskedDecode`: each decode masks the bursts of the samples it decodes.
    private var masksBurstsNow = false
    /// The frames the last decode masked (`burstFrames`); empty when none.
    private var maskedFrames: [Bool] = []
    /// The samples `maskedFrames` were found in: the phone loop decodes the same samples again.
    private var maskedSpan: Range<Int>?

    /// The cap on active HMMs for decoding `sampleCount` samples when the search's own is `cap`:
    /// `longNoisyMaxActiveHMMs` for an uncapped (noisy) utterance longer than `longUtteranceSeconds`.
    static func activeHMMCap(_ cap: Int?, sampleCount: Int, sampleRate: Int, _ options: RecognizerOptions) -> Int? {
        guard cap == nil, Double(sampleCount) > options.longUtteranceSeconds * Double(sampleRate) else { return cap }
        return options.longNoisyMaxActiveHMMs
    }

    private func decode(_ samples: ArraySlice<Int16>, alternatives: (Hypothesis) -> Bool) throws(HeedError) -> Hypothesis {
        try checkAuthorization()
        samplesDecoded += samples.count
        // Batch CMN makes the adaptation depend on exactly the samples decoded (a retry on the
        // loudest stretch has a mean of its own), so it is redone whenever they change.
        if adaptsToNoise, let adaptation = options.noiseAdaptation {
            if adaptedSpan != samples.indices {
                // Over the quiet floor the speech phones are far above it: adapting them too changed
                // no result and cost a tenth of the CPU (BENCHMARKS.md, "Cheaper over the floor").
                decoder.adaptAcousticModel(toNoiseIn: samples, adaptation, silenceOnly: overQuietFloor)
                adaptedSpan = samples.indices
            }
        } else {
            decoder.restoreAcousticModel()
        }
        if !masksBurstsNow {
            maskedFrames = []
        } else if maskedSpan != samples.indices {
            maskedFrames = burstFrames(samples)
            maskedSpan = samples.indices
        }
        let cap = decoder.maxActiveHMMs
        decoder.maxActiveHMMs = Self.activeHMMCap(cap, sampleCount: samples.count, sampleRate: sampleRate, options)
        defer { decoder.maxActiveHMMs = cap }
        do {
            try decoder.startUtterance(maskedFrames: maskedFrames)
            try samples.withUnsafeBufferPointer { (buffer) throws(RecognitionError) in
                try decoder.process(buffer, wholeUtterance: true)
            }
            let hypothesis = try decoder.endUtterance(alternatives: alternatives)
            if selectedSearch != Self.phoneLoopSearch {
                explain("\(selectedSearch) search\(adaptsToNoise ? ", model adapted to the noise" : ""): \(describe(hypothesis))")
            }
            return hypothesis
        } catch {
            throw HeedError(error)
        }
    }

    /// Ends the utterance that began at `startSample` and interprets what was heard, or returns
    /// nil when nothing but silence and noise was decoded.
    private func interpret(_ hypothesis: Hypothesis, startSample: Int, sampleCount: Int) -> Utterance? {
        let spoken = hypothesis.spokenWords
        guard hypothesis.reachedFinalState, let first = spoken.first, let last = spoken.last else {
            // The endpointer heard something, but no path through the grammar (not even the
            // garbage loops) reached its end, or only silence and noise were decoded.
            guard hypothesis.words.isEmpty || !hypothesis.reachedFinalState else { return nil }
            let start = Double(startSample) / Double(sampleRate) + options.endpointer.preRoll
            let end = Double(startSample + sampleCount) / Double(sampleRate)
            return Utterance(start: min(start, end), end: end, transcript: "", intent: nil, understood: false, confidence: 0)
        }
        let start = time(ofFrame: first.startFrame, startSample: startSample)
        let end = time(ofFrame: last.endFrame + 1, startSample: startSample)
        let words = spoken.map { Self.baseWord($0.word) }
        // A rejection that was not weighed against alternatives (`alternativesWanted`) counts as sure.
        let confidence = hypothesis.alternatives.isEmpty ? 1 : Self.confidence(of: words, among: hypothesis.alternatives, meaning: meaning)
        if answerSearch != nil {
            // An answer to a question: one of its phrases, or (through the garbage loops) not an answer.
            let understood = answerPhrases.contains(words) && confidence >= options.minConfidence
            return Utterance(start: start, end: end, transcript: understood ? words.joined(separator: " ") : "", intent: nil,
                             understood: understood, confidence: confidence)
        }
        switch vocabulary {
        case .jsgf:
            return Utterance(start: start, end: end, transcript: words.joined(separator: " "), intent: nil, understood: true, confidence: confidence)
        case .commands:
            // A path through the garbage loops means the speech was not a command.
            let intent = vocabulary.match(words)
            if let intent, confidence >= options.minConfidence {
                return Utterance(start: start, end: end, transcript: words.joined(separator: " "), intent: intent, understood: true, confidence: confidence)
            }
            if intent != nil {
                explain("confidence \(Self.formatted(confidence)) is below --min-confidence \(Self.formatted(options.minConfidence)): turned away")
            }
            return Utterance(start: start, end: end, transcript: "", intent: nil, understood: false, confidence: confidence)
        }
    }

    /// Seconds into the stream at decoder frame `frame` of an utterance that began at `startSample`.
    private func time(ofFrame frame: Int, startSample: Int) -> Double {
        (Double(startSample) + Double(frame) * (Double(sampleRate) / Double(decoder.frameRate))) / Double(sampleRate)
    }

    /// Path scores this far apart (decoder log units) differ in probability by a factor of e.
    /// Chosen on Audio/builtins so that confidence separates right from wrong decodes.
    static let confidenceScale = 500.0

    /// How much of the N-best probability mass agrees with the best path's meaning: the same
    /// intent (any alignment or pronunciation), or the same transcript for a plain grammar.
    static func confidence(of words: [String], among alternatives: [Alternative], meaning: ([String]) -> String) -> Double {
        guard let best = alternatives.map(\.score).max() else { return 0 }
        let target = meaning(words)
        var agreeing = 0.0, total = 0.0
        for alternative in alternatives {
            let weight = exp(Double(alternative.score - best) / confidenceScale)
            total += weight
            if meaning(alternative.words.map(baseWord)) == target { agreeing += weight }
        }
        return total > 0 ? agreeing / total : 0
    }

    /// What a word sequence means under the current expectation: an intent with its slots, an
    /// answer, or a transcript for a plain grammar. Alternatives that mean the same agree.
    private func meaning(_ words: [String]) -> String {
        if answerSearch != nil { return answerPhrases.contains(words) ? words.joined(separator: " ") : "(not an answer)" }
        switch vocabulary {
        case .commands:
            guard let intent = vocabulary.match(words) else { return "(not a command)" }
            return intent.name + intent.slots.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        case .jsgf: return words.joined(separator: " ")
        }
    }

    static func baseWord(_ word: String) -> String { Decoder.baseWord(word) }
}

extension Utterance {
    /// The same stretch of speech, reported as not understood.
    var rejected: Utterance {
        var rejected = self
        rejected.understood = false
        rejected.intent = nil
        rejected.transcript = ""
        return rejected
    }
}

extension Array where Element: Equatable {
    /// Whether `run` occurs in this array as consecutive elements.
    func containsRun(_ run: [Element]) -> Bool {
        guard !run.isEmpty, run.count <= count else { return run.isEmpty }
        return (0...(count - run.count)).contains { self[$0..<$0 + run.count].elementsEqual(run) }
    }
}
