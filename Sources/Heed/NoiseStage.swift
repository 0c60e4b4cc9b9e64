import Foundation
import HeedAudio

/// The one place noise is dealt with: each utterance is classified once, and its class is the
/// plan it is decoded by. There is one plan per class and one decode per plan
/// (`CommandRecognizer.decodeUtterance`); nothing is retried in another way.
///
/// - quiet (real pauses: the quietest tenth of its 10 ms frames is more than
///   `noiseSuppressionRangeDB` below the loudest): the samples as they are.
/// - noisy: the noise suppressor's output (it runs on the whole stream, so its noise estimate is
///   current), over a floor of low-passed noise `maskingNoiseBelowPeakDB` under the loudest frame
///   that masks what the suppressor leaves of the noise.
/// - noisy and steady (its pauses' spectrum hardly changes: a fan, a hood, pink noise): as noisy,
///   and the acoustic model is adapted to the noise first (`RecognizerOptions.noiseAdaptation`).
///
/// A noisy utterance also names its foreground: the stretch within `foregroundMarginDB` of its
/// loudest frame. Voices behind the speaker keep the endpointer open around a command, and the
/// garbage path that explains them swallows the command too; when the whole is not understood,
/// the foreground alone is decoded once more (the person speaking to the device is the loudest).
struct NoiseStage {
    enum Kind: String, Sendable {
        case quiet
        case changingNoise = "noisy, the noise changing"
        case steadyNoise = "noisy, the noise steady"
    }

    /// How one utterance is decoded.
    struct Plan {
        var samples: ArraySlice<Int16>
        var kind: Kind
        /// Indices into `samples` of the loud stretch to decode again if the whole is not understood.
        var foreground: Range<Int>? = nil
        var noisy: Bool { kind != .quiet }
        var adaptsToNoise: Bool { kind == .steadyNoise }
        /// Whether the foreground, not the whole, is held to the language: only in changing noise
        /// (talk behind the speaker); in steady noise the foreground cut off soft last words.
        var holdsForegroundToLanguage: Bool { foreground != nil && kind == .changingNoise }
    }

    let options: RecognizerOptions
    let sampleRate: Int
    /// How much the noise in an utterance varies (see `Decoder.noiseVariability`); nil: unknown.
    let noiseVariability: (ArraySlice<Int16>) -> Double?

    /// The plan for the utterance `raw`, whose denoised twin `denoised` gives (nil: no suppressor).
    func plan(raw: ArraySlice<Int16>, denoised: () -> ArraySlice<Int16>?) -> Plan {
        guard isNoisy(raw), let suppressed = denoised() else { return Plan(samples: raw, kind: .quiet) }
        let steady = isSteady(raw)
        guard let below = options.maskingNoiseBelowPeakDB, let peak = Self.frameLevels(suppressed, frame: sampleRate / 100).max() else {
            return Plan(samples: suppressed, kind: steady ? .steadyNoise : .changingNoise)
        }
        let floored = MaskingNoise.added(to: suppressed, level: MaskingNoise.rms(ofLevelDB: peak - below), sampleRate: sampleRate)[...]
        return Plan(samples: floored, kind: steady ? .steadyNoise : .changingNoise, foreground: foreground(of: floored))
    }

    /// The span of `samples` from the first to the last 10 ms frame within `foregroundMarginDB`
    /// of the loudest, padded by 150 ms so the quiet edges of its words stay in; nil when that is
    /// (nearly) all of it.
    func foreground(of samples: ArraySlice<Int16>) -> Range<Int>? {
        guard let margin = options.foregroundMarginDB else { return nil }
        let frame = sampleRate / 100
        let levels = Self.frameLevels(samples, frame: frame)
        guard let peak = levels.max(), let first = levels.firstIndex(where: { $0 >= peak - margin }),
              let last = levels.lastIndex(where: { $0 >= peak - margin }) else { return nil }
        let pad = sampleRate * 15 / 100
        let lower = max(samples.startIndex, samples.startIndex + first * frame - pad)
        let upper = min(samples.endIndex, samples.startIndex + (last + 1) * frame + pad)
        return upper - lower < (samples.count * 9) / 10 ? lower..<upper : nil
    }

    /// Whether `raw` is noisy: its quietest tenth within `noiseSuppressionRangeDB` of its peak.
    func isNoisy(_ raw: ArraySlice<Int16>) -> Bool {
        guard let limit = options.noiseSuppressionRangeDB, let range = Self.dynamicRange(of: raw, sampleRate: sampleRate) else { return false }
        return range < limit
    }

    /// Whether the noise in `raw` is steady enough to adapt the model to: not background talk.
    func isSteady(_ raw: ArraySlice<Int16>) -> Bool {
        guard let adaptation = options.noiseAdaptation, let variability = noiseVariability(raw) else { return false }
        return variability < adaptation.maxNoiseVariability
    }

    /// Power of each 10 ms frame in dB (full scale is about 90).
    static func frameLevels(_ samples: ArraySlice<Int16>, frame: Int) -> [Double] {
        stride(from: samples.startIndex, to: samples.endIndex - frame + 1, by: frame).map { (start: Int) -> Double in
            let energy = samples[start..<start + frame].reduce(0.0) { $0 + Double($1) * Double($1) }
            return 10 * log10(max(energy / Double(frame), 1))
        }
    }

    /// How far the loudest 10 ms frame stands above the quietest tenth of frames, in dB: low
    /// when noise fills the pauses.
    static func dynamicRange(of samples: ArraySlice<Int16>, sampleRate: Int) -> Double? {
        let levels = frameLevels(samples, frame: sampleRate / 100)
        guard let peak = levels.max() else { return nil }
        return peak - levels.sorted()[levels.count / 10]
    }
}
