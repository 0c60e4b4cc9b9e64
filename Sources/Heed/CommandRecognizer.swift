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

/// Settings of the whole recognition pipeline.
public struct RecognizerOptions: Sendable {
    public var decoder = DecoderConfiguration()
    public var endpointer = Endpointer.Configuration()
    /// Probability of each word on the non-command path (a loop of common words). Higher
    /// rejects more speech, commands included. Chosen by measurement; see BENCHMARKS.md.
    public var garbageWordPenalty = 1e-6
    /// Probability of each phone on the catch-all non-command path (a phone loop).
    public var garbagePhonePenalty = 1e-8
    /// Below this confidence, a decoded command is reported as not understood.
    public var minConfidence = 0.0
    /// Everything below this frequency (Hz) is filtered out of what the endpointer hears (nil:
    /// not). The model ignores it anyway; the endpointer would count hum and rumble as sound.
    public var highPassCutoff: Double? = 100
    /// The noise suppressor of the front end (nil: none). It runs on all audio so its noise
    /// estimate stays current; its output is decoded for noisy utterances only (see
    /// `noiseSuppressionRangeDB`). WebRTC's was chosen over speexdsp's on Audio/* with room
    /// noises: pink noise at 6 dB went from 61 to 123 of 186 commands (BENCHMARKS.md).
    public var noiseSuppression: NoiseSuppressor.Method? = .webRTC(.high)
    /// The suppressor's input is high-passed at this frequency first (nil: not). Mains hum's
    /// 50-100 Hz, which the model ignores, otherwise makes WebRTC's suppressor take the
    /// speech's own low harmonics with it (hum at 6 dB: 95 commands at 100 Hz, 119 at 200).
    public var suppressorHighPassCutoff: Double? = 200
    /// Whether the endpointer hears the denoised audio rather than the raw: in broadband noise
    /// it then finds the quiet ends of words that the noise hides (pink at 6 dB: 71 -> 127, with
    /// 60 ms `minSpeech`).
    public var endpointsDenoisedAudio = true
    /// The endpointer's `minSpeech` when it hears denoised audio. Suppression deepens the quiet
    /// around a click or breath, so it stays loud for longer: a 70 ms breath in a real recording
    /// (the corpus's forever/input_4_16k.wav) became "done" at 60 ms. 80 ms keeps it out and
    /// costs 4 of 186 commands in pink noise at 6 dB, none clean (BENCHMARKS.md).
    public var denoisedMinSpeech = 0.080
    /// Noisy utterances are decoded over a floor of noise this many dB below their loudest 10 ms
    /// frame, laid under the denoised audio (nil: not; see `MaskingNoise`). It masks what the
    /// suppressor leaves of hum and background voices, which the decoder otherwise hears as words.
    /// Chosen on Audio/* with room noises (BENCHMARKS.md, "A masking floor"): hum at 12 dB 132 ->
    /// 172 of 186 commands, babble at 12 dB 69 -> 106; pink at 6 dB loses 6; clean is untouched.
    public var maskingNoiseBelowPeakDB: Double? = 40
    /// Decode the denoised audio only for utterances whose dynamic range (loudest frame against
    /// the quietest tenth) is below this many dB: noisy ones. nil: always when suppression is on.
    public var noiseSuppressionRangeDB: Double? = 35
    /// Clean utterances (not noisy, see `noiseSuppressionRangeDB`) can be decoded over a floor of
    /// low-passed noise this many dB below their loudest 10 ms frame, with the model's silence and
    /// fillers adapted to it, as a noisy utterance's are (nil: never; see
    /// `quietFloorDoubtBelowConfidence` for when). The suites' synthetic recordings lie some 60 dB
    /// above their silence, the corpus's real ones 27-44 dB: quieter silence than the model was
    /// trained on is heard worse. All five suites clean, every utterance over the floor, with
    /// `wordVerificationMarginPerFrame`: 406 -> 416 of 426 commands, 0 -> 0 of 122 non-commands
    /// taken at 40 dB (BENCHMARKS.md, "Cheaper over the floor").
    public var quietFloorBelowPeakDB: Double? = 40
    /// The quiet floor as a second opinion: a clean utterance is decoded over it only when its
    /// plain decode heard a command and then rejected it, or took one with less than this
    /// confidence, and the floor's command is kept when it is surer (nil: every clean utterance
    /// is decoded over the floor instead of as heard). Speech that no path took for a command,
    /// most of what a room says, is decoded once. All five suites clean: 406 -> 417 of 426
    /// commands, 0 of 122 non-commands taken, where the floor for every utterance gave 416 for
    /// about a quarter more CPU in quiet (BENCHMARKS.md, "The quiet floor as a second opinion").
    public var quietFloorDoubtBelowConfidence: Double? = 0.6
    /// A clean utterance is not put over the quiet floor when it holds a run of this many seconds
    /// of loud sound that is not voiced (see `Voicing.longestLoudUnvoicedRun`): a burst of clatter
    /// in an otherwise silent room, for which the floor was measured to cost commands. The same
    /// burst lets a clean utterance take the forced choice (`forcedChoiceMarginPerFrame`).
    public var quietFloorMaxUnvoicedSeconds = 0.12
    /// A noisy utterance that was not understood is decoded again together with the next one
    /// when the next one's speech begins within this many seconds of the first one's end (which
    /// the endpointer puts 0.15 s after its last loud frame) and is not understood alone; a command
    /// heard across the pause is taken (nil: never). In noise the quiet middle of a slow phrase
    /// ("how much | time is left on the timer") can sound like the end of speech, and neither
    /// half is a command. All five suites in pink noise at 6 dB: 305 -> 313 of 426 commands, false
    /// acceptances unchanged; at 0.2 s and at 1 s the same (BENCHMARKS.md, "A phrase cut in two").
    public var rejoinGap: Double? = 0.5
    /// Noisy utterances over background talk are decoded through a learned mask, and taken only
    /// when its masked copies agree (nil: never; see `BackgroundTalkMask`). Off in the library by
    /// default, since its weights are a file (`Models/talk-mask.weights`); `heed` loads them.
    public var backgroundTalkMask: BackgroundTalkMask?
    /// Noisy utterances in steady noise are decoded through a learned mask, and taken only when
    /// its masked copies agree (nil: never; see `SteadyNoiseMask`). Off in the library by default,
    /// since its weights are a file (`Models/steady-mask.weights`); `heed` loads them.
    public var steadyNoiseMask: SteadyNoiseMask?
    /// Adapt the acoustic model's Gaussians to the steady noise of a noisy utterance before decoding
    /// it (nil: never; see `NoiseAdaptation`). Measured with WebRTC's suppressor and the masking
    /// floor (BENCHMARKS.md, "Adapting the model to the noise"): pink noise at 6 dB 249 -> 297 of
    /// 426 commands, false acceptance 39 -> 17 of 122, means only; clean, hum, brown and babble
    /// unchanged. With the wider Gaussians and `adaptedVerificationMarginPerFrame`, 306 and 10.
    public var noiseAdaptation: NoiseAdaptation? = NoiseAdaptation()
    /// The garbage word probability for noisy utterances (see `noiseSuppressionRangeDB`); nil
    /// keeps `garbageWordPenalty` for all. The phone loop is scaled by the same factor.
    public var noisyGarbageWordPenalty: Double? = 1e-4
    /// For the first decode of a noisy utterance, the probability of leaving a command phrase
    /// part-way into the word garbage loop (nil: whole phrases only; see `Grammar.addGarbageLoop`).
    /// Noise blurs the words that tell a near miss from a command ("what is the time" / "what is
    /// the voltage"); this lets the decoder keep the part that fits and call the rest garbage.
    /// The passes that look for a command said over background talk still decode whole phrases:
    /// there the way out let babble take the command's own last words.
    public var noisyGarbageInsidePhrase: Double? = nil
    /// Noise can hide a command from the garbage paths outright: blurred, it fits a loop of common
    /// words and phones better than any command. When no decode of a noisy utterance took a
    /// command path at all, it is decoded once more against the command paths alone (a forced
    /// choice, with no way out), and that command is taken when its fit falls no more than this
    /// many log units per frame short of the free phone loop's on the same audio (nil: never),
    /// and at least `forcedChoiceMinConfidence` of its N-best list agree. Speech that is not a
    /// command fits the commands far worse than the loop (15-55 short); a blurred command, nearly
    /// as well (1-12). All five suites in pink noise at 9 / 6 dB: 354 -> 370 and 313 -> 328 of 426
    /// commands, false acceptances unchanged; one more (of 122) in brown at 6 dB. About a fifth
    /// more CPU on noisy audio (BENCHMARKS.md, "A forced choice"). A burst of clatter
    /// (`quietFloorMaxUnvoicedSeconds`) can do the same to clean speech, so such an utterance takes
    /// this path too: clatter at 12 / 6 dB 395 / 390 -> 396 / 393, nothing else changed. Clean speech
    /// without a burst never does: there it would take near misses ("A forced choice over a burst").
    public var forcedChoiceMarginPerFrame: Double? = 12
    /// See `forcedChoiceMarginPerFrame`.
    public var forcedChoiceMinConfidence = 0.9
    /// A clean utterance that was not understood and holds a burst (`quietFloorMaxUnvoicedSeconds`)
    /// is decoded again with the burst's frames masked: every sound fits them alike, so the words
    /// around the burst decide, where the burst had pulled every path off the command (false: never).
    /// That command is taken when at least `maskedMinConfidence` of its N-best list agree;
    /// verification compares it with the phone loop over the frames not masked. Contexts in
    /// clatter at 10 dB: 328 -> 337 of 366, 1 of 74 false either way; all five suites in clatter
    /// at 12 / 6 dB 396 / 393 -> 400 / 400 of 426, false acceptances the same; clean, faster,
    /// quieter and reverberant speech the same, file for file (BENCHMARKS.md, "Masking a burst").
    public var masksBursts = true
    /// See `masksBursts`: in masked frames any command fits as well as another, so the words
    /// heard must make one more likely than all the others together.
    public var maskedMinConfidence = 0.5
    /// The most HMMs a search keeps active in a frame while it decodes a clean utterance
    /// (PocketSphinx's -maxhmmpf; nil: the decoder's own setting). The garbage loops enter some
    /// 200 words wherever a word ends: about 520 HMMs a frame on clean commands, against plain
    /// PocketSphinx's 12. Above the cap the beams narrow until the crowd thins. Chosen on the
    /// clean suites (BENCHMARKS.md, "Fewer active HMMs").
    public var maxActiveHMMs: Int? = 500
    /// The same for noisy utterances (see `noiseSuppressionRangeDB`; nil: no cap). Noise keeps
    /// many more paths close together, and babble loses commands at any cap that saves much
    /// (BENCHMARKS.md, "Fewer active HMMs").
    public var noisyMaxActiveHMMs: Int? = nil
    /// The cap for an utterance decoded without one (noisy) that is longer than
    /// `longUtteranceSeconds`: longer than any command in the suites (5.3 s at most). Ten seconds
    /// of babble through the garbage loops, uncapped, took a stream's peak memory from 71 to 77 MB
    /// (BENCHMARKS.md, "Memory in noise and with shortcuts"). nil: no cap there either.
    public var longNoisyMaxActiveHMMs: Int? = 500
    public var longUtteranceSeconds = 6.0
    /// On an utterance that was not understood, decode again the part within this many dB of
    /// its loudest frame (nil: never). See `decodeUtterance`; chosen on Audio/* with babble.
    public var foregroundMarginDB: Double? = 15
    /// In a noisy utterance that was not understood, a run of decoded words that forms a command is
    /// taken as the command when every other word is at least this many dB below the run's
    /// loudest word (nil: never) and `backgroundBelowCommandDB` below its quietest. See
    /// `commandOverBackground`; chosen on Audio/* with babble.
    public var foregroundWordMarginDB: Double? = 6
    /// How far every word around a command said over background talk must be below the command's
    /// quietest word. Chosen on Audio/coffee, home and workshop with babble at 10 dB: 0 let 7 of 74
    /// near misses through, 3 lets 1 (BENCHMARKS.md, "Commands over background talk, again").
    public var backgroundBelowCommandDB = 3.0
    /// Utterance verification: a decoded command is decoded again against a free phone loop, the
    /// best any sequence of sounds can fit those frames, and rejected when the command's own
    /// acoustic fit falls short of it by more than this many log units per frame (nil: never).
    /// Speech that is not a command but was forced onto the nearest command path fits it worse
    /// than a real command does. Both fits are on the model's own scale (`Hypothesis.frameScoreOffsets`).
    /// Chosen on Audio/builtins, coffee, home and workshop (BENCHMARKS.md, "Verification on the
    /// model's own scale"): clean, 403 of 426 commands and no false acceptance of 110 at 15.
    public var verificationMarginPerFrame: Double? = 15
    /// The margin for noisy utterances (see `noiseSuppressionRangeDB`) whose model is not adapted
    /// to the noise (background talk, clatter, mild noise): noise fits a free phone loop better
    /// than it fits a command's silences, so real commands fall further short. Clatter at 12 dB over
    /// the four command suites: 390 commands and 6 false acceptances at 18, 392 and 10 at 20.
    public var noisyVerificationMarginPerFrame: Double? = 18
    /// The margin for decodes with the model adapted to the noise (`noiseAdaptation`), in place of
    /// the noisy one (nil: that one). Pink noise at 12 / 6 dB: 385 / 304 commands and 6 / 9 false
    /// acceptances at 16, 381 / 299 and 5 / 6 at 15, 386 / 311 and 8 / 10 at 17.
    public var adaptedVerificationMarginPerFrame: Double? = 16
    /// A command decoded with the model adapted to the noise (`noiseAdaptation`) with less than
    /// this confidence is doubtful: the utterance is decoded again with the model as trained, and
    /// the command is not understood unless that decode takes the same intent (nil: never). The
    /// adaptation is what lets blurred speech fit a command, and a near miss forced onto one
    /// splits its N-best list. All five suites in pink noise at 12 / 9 / 6 dB: false acceptances
    /// 6 / 13 / 11 -> 5 / 6 / 3 of 122, wrong commands 24 / 29 / 25 -> 21 / 19 / 18 of 426, for
    /// 392 / 370 / 328 -> 390 / 366 / 320 right; 0.3 lost 4 more right for no fewer false, 0.2
    /// let 2 more through (BENCHMARKS.md, "A doubtful command checked by the model as trained").
    /// One more decode, of a doubtful command only. Commands only: a `.jsgf` grammar's word
    /// sequences are never checked.
    public var adaptedDoubtBelowConfidence: Double? = 0.25
    /// On clean utterances decoded over the quiet floor (`quietFloorBelowPeakDB`), a verified
    /// command is also rejected when any one of its words falls short of the phone loop by more
    /// than this per frame over that word's own frames (nil: never). A near miss ("I love jazz"
    /// heard as "put on jazz") fits the loop well enough over the whole phrase, but the word that
    /// was not said ("put") fits badly. Not in noise: there a masked word falls as far short in a
    /// real command (BENCHMARKS.md, "One word that does not fit").
    public var wordVerificationMarginPerFrame: Double? = 45
    /// A decoded command must hold at least this many seconds of voiced speech (nil: no check;
    /// see `Voicing`). Every command has a vowel; a burst of clatter decoded as "done" has none.
    /// Chosen on Audio/* with room noises (BENCHMARKS.md, "Voicing"): with clatter at 12 dB,
    /// false acceptance 10 -> 4 of 82; of 1611 right commands in all noises, the least voiced
    /// had 0.02 s, and the clatter taken for commands at most 0.01 s.
    public var minVoicedSeconds: Double? = 0.02
    /// In an utterance with real pauses (not noisy, see `noiseSuppressionRangeDB`), a decoded
    /// command is not understood when a stretch the decoder took for silence holds this many
    /// seconds of voiced speech (nil: no check). There, silence is silence: voiced sound in it
    /// is speech the command leaves out (a room's fading echo is not: see `silenceOnsetRiseDB`).
    /// A burst of clatter had tipped "cancel my appointment" into "cancel" and 1.1 s of
    /// "silence", 0.54 s of it voiced. Chosen on Audio/* clean, in clatter and in reverberant
    /// copies (BENCHMARKS.md, "Speech taken for silence"): no right command lost at 0.3.
    public var maxVoicedSilenceSeconds: Double? = 0.3
    /// Command words also get the pronunciations of other accents (see `AccentVariants`), at this
    /// probability against the dictionary's (nil: not): non-rhotic English ("start" without its
    /// r, and with it before a vowel), an open stressed vowel ("done" as D AA N) and the British
    /// yod ("resume" R IH Z Y UW M). On Audio/workshop's British voices, "start" was heard as
    /// "stop" in 10 of 20 recordings without the first; without the second, 6 of 10 synthetic
    /// "done"s were heard as "start" (BENCHMARKS.md, "Accents", "An open done", "A yod and a
    /// linking r").
    public var accentVariantProbability: Double? = 0.1
    /// Whether, in the noisy search, a command that is one word alone keeps an accent form one
    /// phone from another one-word command's pronunciation (false: there it is heard only as the
    /// dictionary spells it). Of the built-ins that is the r-less "start" (S T AA T), one
    /// consonant from "stop" (S T AA P): noise blurs that consonant, and a word alone has no
    /// neighbours to tell the two apart. Clean speech, longer phrases ("start recording") and
    /// the other forms ("done" D AA N, "resume" with the yod) keep theirs. In pink noise at 12 /
    /// 9 dB, 387 -> 390 and 352 -> 354 of all five suites' 426 commands: "stop"s no longer taken
    /// for "start" (BENCHMARKS.md, "One word alone in noise").
    public var confusableOneWordVariantsInNoise = false
    /// Decoded phrases shorter than this are not verified: a word or two is too short for the
    /// comparison to mean anything (on Audio/builtins, right and wrong single words overlap).
    public var verificationMinWords = 3
    /// How often a stream reports what the speech so far sounds like (nil: never). Each partial
    /// decodes the utterance so far again, so it costs CPU while the person speaks.
    public var partialInterval: Double?
    /// The speaker the model is moved towards before anything is decoded (nil: the model as
    /// trained; see `SpeakerProfile`, made by `heed enroll`).
    public var speaker: SpeakerProfile?
    /// Go on learning the speaker from their own commands as they are understood: each command
    /// heard in quiet with at least `speakerLearningMinConfidence` teaches the model how this
    /// person says its words, as enrollment's sentences do, starting from `speaker` if given.
    /// `CommandRecognizer.learnedSpeaker` is the profile so far. Off by default: on a board
    /// several people share, it learns their mixture (BENCHMARKS.md, "Learning the speaker").
    public var learnsSpeaker = false
    /// Learned only from commands this sure: over the four command suites' clean recordings
    /// (commands and non-commands), 360 results reached 0.9 and 1 of them was wrong.
    public var speakerLearningMinConfidence = 0.9
    /// The learned profile moves the model only once this many commands are in it (a profile to
    /// start from counts its phrases). A few commands teach a few phones: after a "cancel" and a
    /// "done", the demo's "pause" was no longer understood. Until then the sums only gather.
    public var speakerLearningMinPhrases = 10

    public init() {}
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

    /// Lets each word of `graph` also be heard in its accents' forms (`options.accentVariantProbability`):
    /// they are dictionary words of their own ("start~ac", with alternates of its own when the
    /// word has several pronunciations), on parallel transitions that cost that probability. A
    /// linking r ("temperature~lr") goes only where a word that begins with a vowel can follow.
    /// Without `confusableOneWordForms`, a one-word command with a form one phone from another
    /// one-word command's pronunciation gets no forms where it is alone (see `oneWordCommandsNearOthers`).
    private func addAccentVariants(to graph: inout Grammar, confusableOneWordForms: Bool = true) {
        guard let probability = options.accentVariantProbability else { return }
        let words = graph.words
        let variants = variantWords(for: words, marker: AccentVariants.marker, AccentVariants.forms)
        let notAlone = confusableOneWordForms ? [] : Self.oneWordCommandsNearOthers(in: graph) { [decoder] in decoder.pronunciations(of: $0) }
        graph.addVariants(variants, probability: probability, notAlone: notAlone)
        var beginsWithVowel: [String: Bool] = [:]
        graph.addVariants(variantWords(for: words, marker: AccentVariants.linkingMarker) { AccentVariants.linkingForms(pronunciations: $1) },
                          probability: probability) { [decoder] next in
            if let known = beginsWithVowel[next] { return known }
            let answer = decoder.pronunciations(of: next).contains(where: AccentVariants.beginsWithVowel)
            beginsWithVowel[next] = answer
            return answer
        }
    }

    /// The one-word commands of `graph` with an accent form one phone from another one-word
    /// command's pronunciation ("start" S T AA T, "stop" S T AA P).
    static func oneWordCommandsNearOthers(in graph: Grammar, pronunciations: (String) -> [String]) -> Set<String> {
        let alone = graph.oneWordPhrases
        return alone.filter { word in
            let others = alone.subtracting([word]).flatMap(pronunciations).map { $0.split(separator: " ") }
            return AccentVariants.forms(of: word, pronunciations: pronunciations(word)).contains { form in
                others.contains { editDistance(form.split(separator: " "), $0) <= 1 }
            }
        }
    }

    /// For each of `words` that has `forms`, a dictionary word of its own carrying them (the word
    /// and `marker`).
    private func variantWords(for words: Set<String>, marker: String,
                              _ forms: (_ word: String, _ pronunciations: [String]) -> [String]) -> [String: [String]] {
        var variants: [String: [String]] = [:]
        for word in words {
            let forms = forms(word, decoder.pronunciations(of: word))
            let name = word + marker
            guard !forms.isEmpty, forms.allSatisfy({ decoder.addWord(name, phones: $0) }) else { continue }
            variants[word] = [name]
        }
        return variants
    }

    /// The two ways out for speech that is not a command: common words, and single phones for
    /// anything else.
    static func garbageUnits(commandWords: Set<String>, decoder: Decoder) -> (words: [String], phones: [String]) {
        let commandPhones = commandWords.compactMap { decoder.pronunciation(of: $0)?.split(separator: " ") }
        let words = GarbageWords.english.filter { word in
            guard let phones = decoder.pronunciation(of: word)?.split(separator: " ") else { return false }
            // A word one phone away from a command ("top" for "stop") would steal the command.
            return !commandPhones.contains { editDistance($0, phones) <= 1 }
        }
        return (words, addPhoneWords(to: decoder))
    }

    /// The command paths plus a garbage loop of each kind, at these per-unit probabilities; the
    /// word loop can also be entered from inside a phrase (`entryFromInside`).
    static func withGarbage(_ commandGraph: Grammar, _ garbage: (words: [String], phones: [String]),
                            wordPenalty: Double, phonePenalty: Double, entryFromInside: Double? = nil) -> Grammar {
        var grammar = commandGraph
        grammar.addGarbageLoop(units: garbage.words, penalty: wordPenalty, entryFromInside: entryFromInside)
        grammar.addGarbageLoop(units: garbage.phones, penalty: phonePenalty)
        return grammar
    }

    /// One garbage "word" per phone of the model, so a loop of them can match any speech.
    private static func addPhoneWords(to decoder: Decoder) -> [String] {
        let phones = ["AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH",
                      "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH",
                      "UH", "UW", "V", "W", "Y", "Z", "ZH"]
        return phones.compactMap { phone in
            let word = phoneWordPrefix + phone.lowercased()
            return decoder.addWord(word, phones: phone) ? word : nil
        }
    }

    static func editDistance<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
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
            if let chosen = try forcedChoice(samples, startSample: startSample, steadyNoise: noisy && steadyNoise) {
                explain("no path took a command; the forced choice did: \(Self.describe(chosen))")
                return chosen
            }
            return plain.utterance
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
    /// was voiced; nil otherwise.
    private func forcedChoice(_ samples: ArraySlice<Int16>, startSample: Int, steadyNoise: Bool) throws(HeedError) -> Utterance? {
        guard hasForcedChoiceSearch, answerSearch == nil, case .commands = vocabulary,
              let margin = options.forcedChoiceMarginPerFrame else { return nil }
        // The model may still be adapted to these samples from the decode before: `decode` adapts it again only if not.
        adaptsToNoise = steadyNoise && options.noiseAdaptation != nil
        defer { adaptsToNoise = false }
        try use(search: Self.forcedChoiceSearch, noisy: true)
        let hypothesis = try decode(samples, alternatives: { _ in true })
        try selectSearch(noisy: true)
        guard let utterance = interpret(hypothesis, startSample: startSample, sampleCount: samples.count), utterance.understood,
              utterance.confidence >= options.forcedChoiceMinConfidence else {
            explain("forced choice refused: below --forced-choice-confidence \(Self.formatted(options.forcedChoiceMinConfidence))")
            return nil
        }
        let loop = try phoneLoop(samples, noisy: true)
        let shortfall = self.shortfall(of: hypothesis, against: loop, frames: 0...max(0, hypothesis.frameCount - 1))
        guard shortfall <= margin else {
            explain("forced choice refused: it fits \(Self.formatted(shortfall)) per frame worse than the free phone loop, past --forced-choice-margin \(Self.formatted(margin))")
            return nil
        }
        guard var voiced = voiced(utterance, samples, startSample: startSample), voiced.understood else { return nil }
        voiced.isForcedChoice = true
        return voiced
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

    /// Fillers (silence, noise) shorter than this many frames are not looked into: a word's
    /// voiced edge may fall into the silence beside it.
    static let silenceMinFrames = 10
    /// A filler is looked into only when its loudest frame is within this many dB of the spoken
    /// words' loudest: the quiet room around a command is left alone.
    static let silenceWithinDB = 20.0

    /// Voiced sound in a filler counts only from its first onset: a frame this many dB above the
    /// quietest frame before it in the filler and louder than all of them. Speech left out starts
    /// somewhere; the room's echo of the word before the filler only fades, and in a reverberant
    /// copy of the suites it held up to 0.3 s of voiced sound after a command's last word.
    static let silenceOnsetRiseDB = 10.0

    /// The most voiced speech in seconds (counted up to `enough`) in any filler of `words`
    /// (frames of `frameLength` samples from the start of `samples`) of `silenceMinFrames` or
    /// more, from its first onset (`silenceOnsetRiseDB`) on, when the filler from there is within
    /// `silenceWithinDB` of the spoken words' loudest frame.
    static func voicedSpeechInSilence(_ words: [WordSegment], _ samples: ArraySlice<Int16>, frameLength: Int, sampleRate: Int,
                                      enough: Double = .infinity) -> Double {
        let levels = frameLevels(samples, frame: frameLength)
        let frames = { (segment: WordSegment) in min(levels.count, segment.startFrame)..<min(levels.count, segment.endFrame + 1) }
        guard let peak = words.filter({ !$0.isFiller }).compactMap({ levels[frames($0)].max() }).max() else { return 0 }
        return words.filter { $0.isFiller && $0.endFrame - $0.startFrame + 1 >= silenceMinFrames }.reduce(0) { most, filler in
            let range = frames(filler)
            guard let onset = firstOnset(levels[range]), levels[onset..<range.upperBound].max()! >= peak - silenceWithinDB else { return most }
            let stretch = (samples.startIndex + onset * frameLength)..<(samples.startIndex + range.upperBound * frameLength)
            return max(most, Voicing.voicedDuration(in: samples[stretch], sampleRate: sampleRate, enough: enough))
        }
    }

    /// The first of `levels` louder than all before it and at least `silenceOnsetRiseDB` above
    /// the quietest of them, or nil.
    static func firstOnset(_ levels: ArraySlice<Double>) -> Int? {
        var quietest = Double.infinity, loudest = -Double.infinity
        for index in levels.indices {
            if levels[index] >= quietest + silenceOnsetRiseDB && levels[index] > loudest { return index }
            quietest = min(quietest, levels[index])
            loudest = max(loudest, levels[index])
        }
        return nil
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

    /// The span of `samples` from the first to the last 10 ms frame within `marginDB` of the
    /// loudest frame, padded by 150 ms; nil when that is (nearly) all of it, or when the
    /// utterance has real pauses (its quietest tenth more than `backgroundRangeDB` below the
    /// peak): then there is no background to cut away, and cutting would only drop the quiet end
    /// of the speaker's own words ("cancel my appoint-ment").
    static let backgroundRangeDB = 45.0

    /// Power of each 10 ms frame in dB (full scale is about 90).
    static func frameLevels(_ samples: ArraySlice<Int16>, frame: Int) -> [Double] {
        stride(from: samples.startIndex, to: samples.endIndex - frame + 1, by: frame).map { start in
            10 * log10(max(samples[start..<start + frame].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frame), 1))
        }
    }

    static func dynamicRange(_ levels: [Double]) -> Double? {
        guard let peak = levels.max() else { return nil }
        return peak - levels.sorted()[levels.count / 10]
    }

    /// How far the loudest 10 ms frame stands above the quietest tenth of frames, in dB: low
    /// when noise fills the pauses.
    static func dynamicRange(of samples: ArraySlice<Int16>, sampleRate: Int) -> Double? {
        dynamicRange(frameLevels(samples, frame: sampleRate / 100))
    }

    static func foreground(of samples: ArraySlice<Int16>, marginDB: Double, sampleRate: Int) -> Range<Int>? {
        let frame = sampleRate / 100
        let levels = frameLevels(samples, frame: frame)
        guard let peak = levels.max(), let range = dynamicRange(levels), range < backgroundRangeDB,
              let first = levels.firstIndex(where: { $0 >= peak - marginDB }),
              let last = levels.lastIndex(where: { $0 >= peak - marginDB }) else { return nil }
        let span = padded(frames: first...last, frameLength: frame, in: samples, sampleRate: sampleRate)
        return span.count < (samples.count * 9) / 10 ? span : nil
    }

    /// The samples of `frames` (frames of `frameLength` samples counted from the start of
    /// `samples`) with 150 ms either side, so the quiet edges of a loud stretch's words stay in,
    /// clamped to `samples`.
    static func padded(frames: ClosedRange<Int>, frameLength: Int, in samples: ArraySlice<Int16>, sampleRate: Int) -> Range<Int> {
        let pad = sampleRate * 15 / 100
        let lower = max(samples.startIndex, samples.startIndex + frames.lowerBound * frameLength - pad)
        let upper = min(samples.endIndex, samples.startIndex + (frames.upperBound + 1) * frameLength + pad)
        return lower..<max(lower, upper)
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
