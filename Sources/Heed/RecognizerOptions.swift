import Foundation
import HeedAudio
import HeedIntents
import HeedRecognition

/// Settings of the whole recognition pipeline. Every default was chosen on real recorded speech
/// (`make accuracy`; BENCHMARKS.md has the figures and the ablations behind them).
public struct RecognizerOptions: Sendable {
    public var decoder = DecoderConfiguration()
    public var endpointer = Endpointer.Configuration()
    /// Probability of each word on the non-command path (a loop of common words that stands for
    /// a whole utterance). Higher rejects more speech, commands included. On the real one-word
    /// clips 1e-3 took 11 of 143 non-command words where 1e-6 took 27, and lost no coffee request.
    public var garbageWordPenalty = 1e-3
    /// Probability of each phone on the catch-all non-command path (a phone loop).
    public var garbagePhonePenalty = 1e-8
    /// How readily a decoded command is accepted, 0...1 (`Detector.threshold`): higher hears
    /// more commands and more that nobody gave. The default was chosen for at most one false
    /// command per hour of the dev sets' real noise and talk (BENCHMARKS.md).
    public var sensitivity = Detector.defaultSensitivity
    /// The model that turns what the decodes measured into the probability a command is right.
    public var detector = Detector.trained
    /// Everything below this frequency (Hz) is filtered out of what the endpointer hears (nil:
    /// not). The model ignores it anyway; the endpointer would count hum and rumble as sound.
    public var highPassCutoff: Double? = 100
    /// The noise suppressor of the front end (nil: none). It runs on all audio so its noise
    /// estimate stays current; the endpointer hears its output, and its output is decoded for
    /// noisy utterances (`NoiseStage`). On real coffee requests in pink noise at 6 dB, 20 of 31
    /// right with WebRTC's, 1 of 31 without.
    public var noiseSuppression: NoiseSuppressor.Method? = .webRTC(.high)
    /// The suppressor's input is high-passed at this frequency first (nil: not). Mains hum's
    /// 50-100 Hz, which the model ignores, otherwise makes WebRTC's suppressor take the
    /// speech's own low harmonics with it.
    public var suppressorHighPassCutoff: Double? = 200
    /// The endpointer's `minSpeech` when it hears denoised audio: suppression deepens the quiet
    /// around a click or breath, so it stays loud for longer.
    public var denoisedMinSpeech = 0.080
    /// Noisy utterances are decoded over a floor of noise this many dB below their loudest 10 ms
    /// frame, laid under the denoised audio (nil: not; see `MaskingNoise`). It masks what the
    /// suppressor leaves of the noise, which the decoder otherwise hears as words.
    public var maskingNoiseBelowPeakDB: Double? = 40
    /// An utterance is noisy (`NoiseStage`) when its dynamic range (loudest frame against the
    /// quietest tenth) is below this many dB. nil: every utterance is quiet.
    public var noiseSuppressionRangeDB: Double? = 35
    /// A noisy utterance that was not understood is decoded once more, only the stretch within
    /// this many dB of its loudest frame (nil: never; see `NoiseStage`). On real coffee requests
    /// with babble at 12 dB, 2 of 31 right without, 9 of 31 with.
    public var foregroundMarginDB: Double? = 15
    /// Adapt the acoustic model's Gaussians to the steady noise of a noisy utterance before decoding
    /// it (nil: never; see `NoiseAdaptation`).
    public var noiseAdaptation: NoiseAdaptation? = NoiseAdaptation()
    /// The most HMMs the decoder keeps active per frame (PocketSphinx's -maxhmmpf; nil: no cap).
    /// Above the cap the beams narrow until the crowd thins: the work per frame, and the memory
    /// a long noisy utterance takes, stay bounded.
    public var maxActiveHMMs: Int? = 500
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
    /// several people share, it learns their mixture.
    public var learnsSpeaker = false
    /// Learned only from commands the detector is this sure of (`Utterance.confidence`, a
    /// probability): the default threshold of acceptance, so what it accepts in quiet teaches.
    public var speakerLearningMinConfidence = 0.6
    /// The learned profile moves the model only once this many commands are in it (a profile to
    /// start from counts its phrases). Until then the sums only gather.
    public var speakerLearningMinPhrases = 10

    public init() {}
}
