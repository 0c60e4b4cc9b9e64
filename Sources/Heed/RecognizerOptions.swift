import Foundation
import HeedAudio
import HeedIntents
import HeedRecognition

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
    /// Mains hum (50 or 60 Hz and their harmonics to 1 kHz) is fitted in the pauses and subtracted
    /// from all audio before anything else hears it, once the pauses repeat at the mains period
    /// (see `MainsHumCanceller`). Off by default: on the suites' hum, at exactly 50 Hz, it helps
    /// (all five suites at 24 / 12 / 6 dB: 410 / 411 / 403 -> 413 / 415 / 411 of 426 commands,
    /// 4 / 2 / 2 -> 0 / 0 / 1 of 122 non-commands taken), but on hum 0.05 Hz off, as the grid
    /// runs, it takes more non-commands than it saves commands (BENCHMARKS.md, "Subtracting mains hum").
    public var cancelsMainsHum = false
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
