import Foundation

/// How far a voice stands above the steady noise under it: the loudest quarter of 20 ms frames
/// against the quietest 30 %, in dB. That is how `heed test --snr` mixes its noise (speech
/// against its loudest quarter), read back from the mix, so the estimate follows the suites'
/// SNR: over their brown-noise mixes at 6, 9, 12 and 24 dB it read 8.4-9.9, 10.8-12.3,
/// 13.4-15.0 and 24.7-26.7 (the quietest frames of a fluctuating noise lie under its mean).
public enum SpeechToNoise {
    static let frameMilliseconds = 20

    /// The estimate in dB (infinite over digital silence), or nil when `samples` hold fewer than
    /// four frames or are silent.
    public static func estimatedDB(of samples: ArraySlice<Int16>, sampleRate: Int) -> Double? {
        let length = sampleRate * frameMilliseconds / 1000
        guard length > 0, samples.count >= 4 * length else { return nil }
        let powers = stride(from: samples.startIndex, through: samples.endIndex - length, by: length).map { start in
            samples[start..<start + length].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(length)
        }.sorted()
        let quiet = powers.prefix(max(1, Int(Double(powers.count) * NoiseBand.quietestShare)))
        let loud = powers.suffix(max(1, powers.count / 4))
        let noise = quiet.reduce(0, +) / Double(quiet.count)
        let speech = loud.reduce(0, +) / Double(loud.count)
        guard speech > 0 else { return nil }
        return noise > 0 ? 10 * log10(speech / noise) : .infinity
    }
}
