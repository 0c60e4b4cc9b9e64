import Foundation
import HeedAudio
import HeedIntents
import HeedRecognition
import HeedShortcuts

/// What to listen for: the command phrases (with a garbage model for everything else), or a
/// hand-written JSGF grammar that is decoded without intent matching.
public enum Vocabulary: Sendable {
    /// Command phrases (usually the built-ins) and intents from contexts, with rejection.
    case commands(CommandSet, contexts: [Context] = [])
    case jsgf(URL)

    /// The intent a word sequence carries: the command phrases first, then each context.
    public func match(_ words: [String]) -> Intent? {
        guard case .commands(let commands, let contexts) = self else { return nil }
        if let intent = commands.match(words) { return intent }
        for context in contexts { if let intent = context.match(words) { return intent } }
        return nil
    }

    /// The intents each part offers, in order: "builtins" (the command phrases), then each
    /// context by its file's name.
    public var intentNamesBySource: [(source: String, intents: [String])] {
        guard case .commands(let commands, let contexts) = self else { return [] }
        func unique(_ names: [String]) -> [String] { var seen = Set<String>(); return names.filter { seen.insert($0).inserted } }
        var parts: [(String, [String])] = []
        if !commands.commands.isEmpty { parts.append(("builtins", unique(commands.commands.map(\.intent)))) }
        for context in contexts {
            let name = URL(fileURLWithPath: context.source).deletingPathExtension().lastPathComponent
            parts.append((name, unique(context.expressions.map(\.intent))))
        }
        return parts
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
    /// A free loop of phones: the best any sounds fit an utterance, the detector's yardstick.
    static let phoneLoopSearch = "phone-loop"
    /// The commands' and contexts' language alone, without the garbage paths (`detect`, step 2).
    static let languageSearch = "language"
    /// The word graph of `commandSearch` (nil for a JSGF vocabulary), for `exportCommandSearch`.
    private var commandSearchGrammar: Grammar?
    /// The commands' and contexts' language alone: the minimal word graph, before the garbage
    /// paths. The endpointer asks it whether the words so far can end a sentence (`continuation`).
    private(set) var languageGrammar: Grammar?
    private var selectedSearch = commandSearch
    /// What the next utterance is decoded against (a dialogue's question narrows it), and the
    /// phrases that answer it; `answerSearch` is nil while listening for commands.
    public private(set) var expectation = Conversation.Expectation.command
    private var answerPhrases: Set<[String]> = []
    private var answerSearch: String?

    /// The rate the decoder's acoustic model expects; everything is converted to it.
    public var sampleRate: Int { decoder.sampleRate }

    /// Problems that do not stop decoding but change it, for the user to see (`heed` prints them).
    public var warnings: [String] { decoder.scorerWarning.map { [$0] } ?? [] }

    /// Receives, line by line, how each utterance is decided (`explain`); nil: no account is made.
    public var onExplanation: ((String) -> Void)?

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
        decoder.maxActiveHMMs = options.maxActiveHMMs
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

    /// Builds the command search for `commands` plus the contexts (and the language alone and the
    /// phone loop, which the detector compares with), dropping any built before first, so that
    /// the new ones take the old ones' memory: the minimal word graph of the phrases, and beside
    /// it the garbage loops, which stand for a whole utterance that is not a command.
    private func installCommandSearches(_ commands: CommandSet) throws(HeedError) {
        let rebuilding = commandSearchGrammar != nil
        if rebuilding {
            for name in [Self.commandSearch, Self.phoneLoopSearch, Self.languageSearch] { decoder.remove(search: name) }
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
        languageGrammar = commandGraph
        let garbage = Self.garbageUnits(decoder: decoder)
        do {
            let searched = Self.withGarbage(commandGraph, garbage, wordPenalty: options.garbageWordPenalty, phonePenalty: options.garbagePhonePenalty)
            try decoder.add(searched, named: Self.commandSearch)
            commandSearchGrammar = searched
            try decoder.add(commandGraph, named: Self.languageSearch)
            // The detector's yardstick: the best any sequence of sounds fits the samples.
            var loop = Grammar()
            loop.addGarbageLoop(units: garbage.phones, penalty: 1)
            try decoder.add(loop, named: Self.phoneLoopSearch)
            if rebuilding {
                try decoder.select(Self.commandSearch)
                selectedSearch = Self.commandSearch
            }
        } catch {
            throw HeedError(error)
        }
    }

    /// The search speech is decoded with (commands, contexts and the garbage loops) as a
    /// PocketSphinx FSG file, and a CMUdict-format dictionary of its words
    /// with every pronunciation the decoder uses: the same language for plain PocketSphinx
    /// (`heed context export`; `make bench` compares the two on it). nil for a JSGF vocabulary.
    public func exportCommandSearch(languageOnly: Bool = false) -> (fsg: String, dictionary: String)? {
        guard let grammar = languageOnly ? languageGrammar : commandSearchGrammar else { return nil }
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
            let garbage = Self.garbageUnits(decoder: decoder)
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

    /// A stream that decodes audio as it arrives, utterance by utterance. Each utterance is
    /// decoded at the first pause, while the endpointer still waits for the end of its trailing
    /// silence (how long it waits depends on what was heard), so the result comes out as soon as
    /// the silence is confirmed; when speech resumes instead, that decode is done again later.
    public func makeStream() -> UtteranceStream {
        UtteranceStream(recognizer: self)
    }

    /// Changes whenever the searches or what is expected change (shortcuts, a dialogue's
    /// question), so a result decoded against the old ones is not used.
    public private(set) var grammarGeneration = 0

    // MARK: Used by UtteranceStream

    /// Decodes one complete utterance that begins at `startSample` of the stream and lets the
    /// detector decide it (`detect`); a noisy utterance not accepted, its foreground once more the
    /// same way (`NoiseStage`). `NoiseStage` prepares the samples and says whether to adapt the
    /// model to their noise. So an utterance costs at most three decodes in quiet and six in noise.
    ///
    /// The utterance is decoded in one piece so that cepstral mean normalization uses this
    /// utterance's own mean: the result does not depend on what was decoded before it.
    func decodeUtterance(_ plan: NoiseStage.Plan, startSample: Int) throws(HeedError) -> Utterance? {
        try checkAuthorization()
        if plan.adaptsToNoise, let adaptation = options.noiseAdaptation {
            decoder.adaptAcousticModel(toNoiseIn: plan.samples, adaptation)
        } else {
            decoder.restoreAcousticModel()
        }
        // Held to the language only once: in changing noise on the foreground (held on both, the
        // babble mixes decoded 48 times more for 19: no request more); in quiet and steady noise
        // on the whole, since the foreground cut off a soft last word ("... with sweetener").
        let whole = try detect(plan.samples, startSample: startSample, noisy: plan.noisy, holdingToLanguage: !plan.holdsForegroundToLanguage)
        guard whole?.understood != true, answerSearch == nil, let foreground = plan.foreground else { return whole }
        explain("decoded again, only the stretch within \(Self.formatted(options.foregroundMarginDB ?? 0)) dB of its loudest frame")
        let loud = try detect(plan.samples[foreground], startSample: startSample + foreground.lowerBound - plan.samples.startIndex,
                              noisy: true, holdingToLanguage: plan.holdsForegroundToLanguage)
        return loud?.understood == true ? loud : whole
    }

    /// The decodes of one stretch of samples and the detector's decision on them:
    /// 1. against the active search (the commands with the garbage paths beside them);
    /// 2. when the garbage paths won, against the commands' language alone (`holdingToLanguage`):
    ///    the best command there is in these samples, and how far it falls below the garbage
    ///    path (the search also loses a request's path to the garbage at a hesitation);
    /// 3. for the command either found, against a free phone loop: the best any sounds fit.
    /// What they measured (`Evidence`) goes to the detector, which alone accepts or rejects.
    private func detect(_ samples: ArraySlice<Int16>, startSample: Int, noisy: Bool, holdingToLanguage: Bool) throws(HeedError) -> Utterance? {
        try use(search: answerSearch ?? Self.commandSearch)
        let detects: Bool
        if case .commands = vocabulary { detects = true } else { detects = false }
        let first = try decode(samples, alternatives: alternativesWanted, codebooks: detects ? .keptForNext : .own)
        guard detects else { return interpret(first, startSample: startSample, sampleCount: samples.count) }
        // The command to decide on: the first decode's, or the language alone's when the garbage won.
        var candidate: Hypothesis?, held = false
        if isCandidate(first) {
            candidate = first
        } else if holdingToLanguage, answerSearch == nil {
            try use(search: Self.languageSearch)
            let language = try decode(samples, alternatives: alternativesWanted, codebooks: .reusedFromLast)
            if isCandidate(language) { (candidate, held) = (language, true) }
        }
        guard let candidate, let heard = interpret(candidate, startSample: startSample, sampleCount: samples.count),
              let firstWord = candidate.spokenWords.first, let lastWord = candidate.spokenWords.last else {
            return interpret(first, startSample: startSample, sampleCount: samples.count)
        }
        try use(search: Self.phoneLoopSearch)
        let loop = try decode(samples, alternatives: { _ in false }, codebooks: .reusedFromLast)
        // How far below `other` the candidate fits `frames`, per frame.
        func shortfall(from other: Hypothesis, over frames: ClosedRange<Int>) -> Double {
            (other.acousticScore(frames: frames) - candidate.acousticScore(frames: frames)) / Double(frames.count)
        }
        let all = 0...max(0, candidate.frameCount - 1), spoken = firstWord.startFrame...max(firstWord.startFrame, lastWord.endFrame)
        let shares = Self.shares(among: candidate.alternatives, meaning: meaning)
        let words = candidate.spokenWords.map { Self.baseWord($0.word) }
        let evidence = Evidence(
            transcript: words.joined(separator: " "), share: candidate.alternatives.isEmpty ? 1 : shares[meaning(words)] ?? 0,
            // The garbage paths won the first decode of a held candidate outright.
            garbageShare: held ? 1 : shares[answerSearch == nil ? Self.notACommand : Self.notAnAnswer] ?? 0,
            loopShortfall: shortfall(from: loop, over: all), garbageShortfall: held ? shortfall(from: first, over: all) : 0,
            wordLoopShortfall: shortfall(from: loop, over: spoken),
            wordFraction: Double(spoken.count) / Double(all.count), heldToLanguage: held, words: words.count,
            seconds: Double(samples.count) / Double(sampleRate), noisy: noisy, adaptedToNoise: decoder.isAdaptedToNoise)
        let detection = options.detector.decide(evidence, sensitivity: options.sensitivity)
        var utterance = detection.accepted ? heard : heard.rejected
        utterance.confidence = detection.probability
        utterance.detection = detection
        explain(Self.describe(detection, words: words))
        return utterance
    }

    /// Whether `hypothesis` reached the end of the grammar through a command's (or an answer's) words.
    private func isCandidate(_ hypothesis: Hypothesis) -> Bool {
        guard hypothesis.reachedFinalState else { return false }
        let words = hypothesis.spokenWords.map { Self.baseWord($0.word) }
        if answerSearch != nil { return answerPhrases.contains(words) }
        return vocabulary.match(words) != nil
    }


    /// What the speech so far sounds like, for live feedback: the utterance up to now decoded the
    /// same way (a separate pass, so the final result is unaffected), command words only.
    func partialTranscript(_ samples: ArraySlice<Int16>) throws(HeedError) -> String {
        try use(search: answerSearch ?? Self.commandSearch)
        decoder.restoreAcousticModel()
        guard case .commands = vocabulary else { return try decode(samples, alternatives: { _ in false }).text }
        let known = answerSearch == nil ? commandWords : Set(answerPhrases.joined())
        return try decode(samples, alternatives: { _ in false }).spokenWords.map { Self.baseWord($0.word) }.filter(known.contains).joined(separator: " ")
    }

    /// How far the words of `utterance` (decoded at a pause) are from a whole sentence of the
    /// commands and contexts, for the endpointer: how long to wait before the pause is the end.
    enum Completeness { case complete, couldGoOn, incomplete }

    func completeness(of utterance: Utterance?) -> Completeness {
        guard let utterance, utterance.understood else { return .incomplete }
        // An answer to a question is a short phrase of its own: complete once understood.
        guard answerSearch == nil, let languageGrammar,
              let place = languageGrammar.continuation(of: Context.words(utterance.transcript)) else { return .complete }
        return !place.canEnd ? .incomplete : place.canContinue ? .couldGoOn : .complete
    }

    /// Makes `name` the search for the next decode.
    private func use(search name: String) throws(HeedError) {
        guard name != selectedSearch else { return }
        do { try decoder.select(name) } catch { throw HeedError(error) }
        selectedSearch = name
    }

    /// Which decodes need an N-best list (see `Decoder.endUtterance`): confidence is read from
    /// it for a command. A path through the garbage is not weighed against its alternatives:
    /// its lattice is the costliest of all, and weighing only ever said how sure a rejection was.
    private func alternativesWanted(_ hypothesis: Hypothesis) -> Bool {
        guard answerSearch == nil, case .commands = vocabulary else { return true }
        return vocabulary.match(hypothesis.spokenWords.map { Self.baseWord($0.word) }) != nil
    }

    private func decode(_ samples: ArraySlice<Int16>, alternatives: (Hypothesis) -> Bool,
                        codebooks: Decoder.CodebookSearch = .own) throws(HeedError) -> Hypothesis {
        try checkAuthorization()
        samplesDecoded += samples.count
        do {
            try decoder.startUtterance(codebooks: codebooks)
            try samples.withUnsafeBufferPointer { (buffer) throws(RecognitionError) in
                try decoder.process(buffer, wholeUtterance: true)
            }
            let hypothesis = try decoder.endUtterance(alternatives: alternatives)
            if selectedSearch != Self.phoneLoopSearch {
                explain("\(selectedSearch) search\(decoder.isAdaptedToNoise ? ", model adapted to the noise" : ""): \(describe(hypothesis))")
            }
            return hypothesis
        } catch {
            throw HeedError(error)
        }
    }

    /// Reads a hypothesis as an utterance: a command (or an answer) when its words are one, for
    /// the detector to decide, or not understood; nil when nothing but silence and noise was decoded.
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
        let transcript = words.joined(separator: " ")
        if answerSearch != nil {
            let answer = answerPhrases.contains(words)
            return Utterance(start: start, end: end, transcript: answer ? transcript : "", intent: nil, understood: answer, confidence: 0)
        }
        switch vocabulary {
        case .jsgf:
            // A plain grammar has no garbage paths to reject with: its confidence is the N-best share.
            let shares = Self.shares(among: hypothesis.alternatives, meaning: meaning)
            let confidence = hypothesis.alternatives.isEmpty ? 1 : shares[meaning(words)] ?? 0
            return Utterance(start: start, end: end, transcript: transcript, intent: nil, understood: true, confidence: confidence)
        case .commands:
            // A path through the garbage loops means the speech was not a command.
            guard let intent = vocabulary.match(words) else {
                return Utterance(start: start, end: end, transcript: "", intent: nil, understood: false, confidence: 0)
            }
            return Utterance(start: start, end: end, transcript: transcript, intent: intent, understood: true, confidence: 0)
        }
    }

    /// Seconds into the stream at decoder frame `frame` of an utterance that began at `startSample`.
    private func time(ofFrame frame: Int, startSample: Int) -> Double {
        (Double(startSample) + Double(frame) * (Double(sampleRate) / Double(decoder.frameRate))) / Double(sampleRate)
    }

    /// Path scores this far apart (decoder log units) differ in probability by a factor of e.
    /// Chosen on Audio/builtins so that confidence separates right from wrong decodes.
    static let confidenceScale = 500.0

    /// How the N-best probability mass falls over meanings (`meaning` of each alternative's
    /// words: an intent with its slots, "(not a command)" for the garbage paths, ...). Confidence
    /// is the share of the best path's meaning: the same intent (any alignment or pronunciation),
    /// or the same transcript for a plain grammar.
    static func shares(among alternatives: [Alternative], meaning: ([String]) -> String) -> [String: Double] {
        guard let best = alternatives.map(\.score).max() else { return [:] }
        // The list repeats word sequences (other alignments, pronunciations): each is matched once.
        var meanings: [[String]: String] = [:]
        var mass: [String: Double] = [:], total = 0.0
        for alternative in alternatives {
            let weight = exp(Double(alternative.score - best) / confidenceScale)
            total += weight
            let words = alternative.words.map(baseWord)
            let alternativeMeaning = meanings[words] ?? meaning(words)
            meanings[words] = alternativeMeaning
            mass[alternativeMeaning, default: 0] += weight
        }
        return total > 0 ? mass.mapValues { $0 / total } : [:]
    }

    private static let notACommand = "(not a command)"
    private static let notAnAnswer = "(not an answer)"

    /// What a word sequence means under the current expectation: an intent with its slots, an
    /// answer, or a transcript for a plain grammar. Alternatives that mean the same agree.
    private func meaning(_ words: [String]) -> String {
        if answerSearch != nil { return answerPhrases.contains(words) ? words.joined(separator: " ") : Self.notAnAnswer }
        switch vocabulary {
        case .commands:
            guard let intent = vocabulary.match(words) else { return Self.notACommand }
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
