import Foundation

/// Whether the noise under a stretch of audio is mains hum: a fridge's or a transformer's
/// 50 or 60 Hz and its harmonics repeat exactly every mains period, which no broadband noise
/// does. Brown noise lies in the same low band as hum (`NoiseBand` cannot tell them apart), and
/// the steady-noise mask helps in strong brown noise but costs commands in hum (BENCHMARKS.md).
///
/// Read from the quietest 64 ms frames, where the voice is weakest: the suites' hum mixes at 6 to
/// 12 dB gave at least 0.74 (most 1.0), brown noise at most 0.06, pink noise about 0.
public enum MainsHum {
    /// The mains frequencies, in Hz.
    static let frequencies = [50.0, 60.0]
    static let frameMilliseconds = 64

    /// The mean correlation (-1...1) of the quietest 30 % of frames with themselves one mains
    /// period later, at whichever of 50 and 60 Hz gives more; nil when `samples` are shorter
    /// than one frame or silent.
    public static func periodicity(of samples: ArraySlice<Int16>, sampleRate: Int) -> Double? {
        let length = sampleRate * frameMilliseconds / 1000
        guard length >= 2, samples.count >= length else { return nil }
        // Each frame without its mean, so a DC offset does not read as a period.
        func mean(_ start: Int) -> Double {
            samples[start..<start + length].reduce(0.0) { $0 + Double($1) } / Double(length)
        }
        func centred(_ start: Int) -> [Double] {
            let m = mean(start)
            return samples[start..<start + length].map { Double($0) - m }
        }
        // Every frame's energy, summed in place: only the quietest frames are copied out.
        let energies = stride(from: samples.startIndex, through: samples.endIndex - length, by: length / 2).map { start in
            let m = mean(start)
            return (energy: samples[start..<start + length].reduce(0.0) { $0 + (Double($1) - m) * (Double($1) - m) }, start: start)
        }
        let quietest = energies.sorted { $0.energy < $1.energy }.prefix(max(1, Int(Double(energies.count) * NoiseBand.quietestShare)))
        guard quietest.contains(where: { $0.energy > 0 }) else { return nil }
        let frames = quietest.map { centred($0.start) }
        return frequencies.map { frequency in
            let lag = Int((Double(sampleRate) / frequency).rounded())
            return frames.reduce(0.0) { $0 + correlation($1, lag: lag) } / Double(frames.count)
        }.max()
    }

    /// The normalised correlation of `x` with itself `lag` samples later.
    static func correlation(_ x: [Double], lag: Int) -> Double {
        guard lag > 0, lag < x.count else { return 0 }
        var product = 0.0, early = 0.0, late = 0.0
        for i in 0..<(x.count - lag) {
            product += x[i] * x[i + lag]
            early += x[i] * x[i]
            late += x[i + lag] * x[i + lag]
        }
        return early > 0 && late > 0 ? product / (early * late).squareRoot() : 0
    }
}
