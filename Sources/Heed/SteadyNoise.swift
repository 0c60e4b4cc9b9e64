import Foundation
import HeedAudio

/// How utterances in steady noise (fans, traffic, mains hum) are decoded: through a learned mask
/// (`TalkMask` with steady-noise weights) that keeps the bins where the voice outweighs the
/// noise, once for each of `floors`, and taken only when every masked copy hears the same.
///
/// The suppressor takes off the noise's average; the mask decides bin by bin, and so keeps a
/// weak fricative that the suppressor and the masking floor bury (all five suites in pink noise
/// at 6 dB, 319 -> 362 of 426; BENCHMARKS.md, "A learned mask for steady noise"). One masked
/// copy lets near misses through, as the talk mask's does; two that must agree do not. Only noisy
/// utterances whose noise is steady (`CommandRecognizer.isSteadyNoise`) and broadband
/// (`minShareAbove1kHz`) reach it.
public struct SteadyNoiseMask: Sendable {
    public var mask: TalkMask
    /// The gain of a bin the mask hears as noise, one masked copy per floor.
    public var floors: [Double] = [0.1, 0.3]
    /// Noise with less of its power above 1 kHz than this (`NoiseBand`) is left to the
    /// suppressor: in mains hum and brown noise, which lie below the consonants, the mask was
    /// measured to cost commands (issue 4's contexts in hum at 10 dB, 359 -> 331 of 366; all five
    /// suites in brown at 12 dB, 406 -> 400 of 426). nil: every steady noise.
    public var minShareAbove1kHz: Double? = 0.3
    /// Noise below 1 kHz still goes through the mask when the voice stands less than this many dB
    /// above it (`SpeechToNoise`) and it is not mains hum (`MainsHum`): in strong brown noise the
    /// mask was measured to take false acceptances from 4 to 1 at 6 dB and from 5 to 2 at 9 dB,
    /// where at 12 and 24 dB it loses commands. The line lies between the suites' 10 and 12 dB
    /// mixes (BENCHMARKS.md). nil: no low-band noise goes through the mask.
    public var lowBandBelowSNR: Double? = 13
    /// Noise this periodic at the mains period (`MainsHum.periodicity`) is hum, which the
    /// suppressor handles better than the mask at every SNR measured.
    public static let mainsHumPeriodicity = 0.5
    /// Whether copies that heard one command in other words ("set the lathe to high speed",
    /// "... at high speed") agree (`CommandRecognizer.agreed`): all five suites in pink noise at
    /// 12 / 6 dB, 392 / 336 -> 395 / 346 commands of 426, false acceptances unchanged
    /// (BENCHMARKS.md, "Copies that agree on the meaning").
    public var agreesOnMeaning = true
    /// When the masked copies disagree and one of them heard a command, the utterance is decoded
    /// once more unmasked, and a command it shares with a copy is taken if the lower of their
    /// two confidences is at least this (two of three decodes agree). nil (the default): copies
    /// that disagree are not a command. At every floor measured it won commands and wrong commands
    /// about as fast (BENCHMARKS.md, "Copies that agree on the meaning").
    public var tieBreakMinConfidence: Double?
    /// The silence that ends an utterance going through the mask in strong broadband noise
    /// (`holdBelowSNR`), in place of the endpointer's (0.25 s), so the mask hears the weak last
    /// consonant the endpointer cut off. All five suites in pink noise at 12 dB, 395 -> 397 of 426
    /// commands and 3 -> 2 of 122 false acceptances; at 0.45 s two more false acceptances in brown
    /// at 6 dB (BENCHMARKS.md, "A longer wait in steady noise"). nil: the endpointer's own.
    public var trailingSilence: Double? = 0.35
    /// Utterances are held open (`trailingSilence`) only when the noise is broadband
    /// (`holdMinShareAbove1kHz`) and the voice stands less than this many dB above it
    /// (`SpeechToNoise`), between the suites' 12 and 18 dB mixes (at 16 a few 12 dB utterances
    /// were not held: 396 commands rather than 397). Held in milder noise, pink at 24 dB lost 4
    /// commands and took 2 more non-commands; held in brown noise, brown at 9 dB lost 2. nil: always.
    public var holdBelowSNR: Double? = 17

    public init(mask: TalkMask) {
        self.mask = mask
    }

    /// `Models/steady-mask.weights`, made by `scripts/steady-mask.py` (seed 1).
    public static let modelFileName = "steady-mask.weights"
    /// The share of the noise's power above 1 kHz from which it is broadband enough to hold an
    /// utterance open (`trailingSilence`), whatever `minShareAbove1kHz` lets through the mask: the
    /// hold was measured to help only in noise that covers the consonants.
    public static let holdMinShareAbove1kHz = 0.3

    /// How long a silence ends the utterance under way (`trailingSilence`), given the noise under
    /// `raw` (the utterance so far, with the noise heard before it); nil: the endpointer's own.
    func trailingSilence(over raw: ArraySlice<Int16>, sampleRate: Int) -> Double? {
        guard let trailingSilence,
              (NoiseBand.share(above: 1000, of: raw, sampleRate: sampleRate) ?? 0) >= Self.holdMinShareAbove1kHz else { return nil }
        guard let holdBelowSNR else { return trailingSilence }
        guard let snr = SpeechToNoise.estimatedDB(of: raw, sampleRate: sampleRate), snr < holdBelowSNR else { return nil }
        return trailingSilence
    }

    /// How the copies agree. In steady noise a copy's forced choice may agree in other words: kept
    /// out, all five suites in pink at 6 dB lost three "set the lathe to high speed" and no false
    /// acceptance (BENCHMARKS.md, "Copies that agree on the meaning, not through the forced choice").
    var copyAgreement: CopyAgreement { agreesOnMeaning ? .meaning(withForcedChoice: true) : .words }

    /// Whether the noise under `raw` (the utterance with the noise heard before it) is one the
    /// mask is for: broadband, or low and strong but not hum.
    func isFor(_ raw: ArraySlice<Int16>, sampleRate: Int) -> Bool {
        guard let minShareAbove1kHz else { return true }
        if (NoiseBand.share(above: 1000, of: raw, sampleRate: sampleRate) ?? 0) >= minShareAbove1kHz { return true }
        guard let lowBandBelowSNR, let snr = SpeechToNoise.estimatedDB(of: raw, sampleRate: sampleRate), snr < lowBandBelowSNR,
              let periodicity = MainsHum.periodicity(of: raw, sampleRate: sampleRate) else { return false }
        return periodicity < Self.mainsHumPeriodicity
    }
}
