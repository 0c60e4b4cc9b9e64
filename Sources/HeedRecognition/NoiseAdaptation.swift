import CPTMScorer

/// How the decoder adapts the acoustic model's Gaussians to the steady noise of an utterance
/// (`Decoder.adaptAcousticModel(toNoiseIn:_:)`; the method is in Sources/CPTMScorer/noise_adaptation.c).
/// Chosen on Audio/* in pink noise (BENCHMARKS.md in git history, "Adapting the model to the noise");
/// on real requests in pink noise at 18, 12 and 6 dB, the best other settings found on one fifth of
/// the coffee requests (range 21 dB, clean floor 30 dB: 156 -> 163 of 186) lost 4 on another fifth.
public struct NoiseAdaptation: Sendable, Equatable {
    /// A mel band's noise is its level in this fraction of the quietest frames.
    public var noisePercentile = 0.1
    /// ... raised by this many dB: a little more noise than the quiet frames show rejected more
    /// non-commands and lost no commands.
    public var noiseGainDB = 3.0
    /// Clean speech is estimated by taking the noise off each frame, but no further than this
    /// below what was heard.
    public var cleanFloorDB = 20.0
    /// Adapt in full only when the loudest tenth of the (denoised) utterance is within this many dB
    /// of its quietest tenth: with speech far above what noise is left, adapting lost commands.
    public var maxSpeechRangeDB = 17.4
    /// Past that, adapt for this many dB more of range, to the noise taken as lower by twice the
    /// excess, so the adaptation fades out as the speech rises above the noise (0: a hard gate).
    /// At pink 12 dB two utterances in three were over the gate and got nothing: all suites went
    /// from 371 to 379 of 426 commands, 15 to 11 of 122 false acceptances (BENCHMARKS.md in git
    /// history, "Fading the adaptation out"); real requests at pink 12 and 6 dB, every 5th: 93 -> 96
    /// of 124.
    public var rangeFadeDB = 6.0
    /// Adapt only to noise steadier than this (`Decoder.noiseVariability(of:quietest:)` of the raw
    /// audio, over its `noiseVariabilityQuietest` quietest frames): background talk changes too
    /// fast for one noise spectrum to stand for it, and adapting to it lost a third of the
    /// commands heard over babble.
    public var maxNoiseVariability = 0.55
    /// The share of an utterance's quietest frames its noise variability is judged on. Over the
    /// quieter half, the command's own quiet sounds counted as noise, and mains hum under speech
    /// looked as changeable as background talk (builtins and coffee at 12 and 6 dB, 5th to 95th
    /// percentile: hum 0.28-0.83, babble 0.58-0.75); over the quietest tenth, hum 0.23-0.37,
    /// pink 0.33-0.48, brown 0.33-0.50, babble 0.63-1.03 (BENCHMARKS.md in git history, "Silence
    /// that sounds like the room").
    public var noiseVariabilityQuietest = 0.1
    /// How far (natural-log units, a standard deviation) a frame may stray from a Gaussian's mean
    /// in the mel bands the noise dominates, added to the trained variances in proportion to the
    /// noise's share of each band (0: variances as trained). What the suppressor leaves of the
    /// noise is not steady, and the speech under it is not known: the adapted means alone are too
    /// sure of it. Pink noise at 6 dB, all suites: 0.3 / 0.5 / 0.7 / 1.0 gave 312 / 314 / 313 /
    /// 289 of 426 commands against 297 with 0 (BENCHMARKS.md in git history, "Wider Gaussians in
    /// noise"). Real requests, every 5th, pink 18/12/6 dB: 157 / 156 / 154 / 146 of 186; with 0,
    /// real words in pink at 6 dB were taken 4 times of 143 against 2.
    public var uncertainty = 0.5

    public init() {}

    var cSettings: heed_noise_adaptation_settings {
        heed_noise_adaptation_settings(noise_percentile: noisePercentile, noise_gain_db: noiseGainDB,
                                       clean_floor_db: cleanFloorDB, max_speech_range_db: maxSpeechRangeDB,
                                       range_fade_db: rangeFadeDB, uncertainty: uncertainty)
    }
}
