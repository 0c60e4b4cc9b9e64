import Foundation

/// Where the noise under a stretch of audio lies in frequency: the share of its power above
/// 1 kHz, where the consonants that tell commands apart are. Pink noise (a fan, air) spreads
/// over that band; brown noise (traffic's rumble) and mains hum lie below it, where the high-pass
/// filter and the suppressor take them off. The steady-noise mask was measured to gain commands
/// in pink noise and to lose them in brown and hum (BENCHMARKS.md), so it is used only where this
/// is high.
///
/// The noise is read from the quietest frames, where the voice is weakest. Over the suites'
/// mixes at 6 and 12 dB it was 0.38-0.48 in pink noise, 0.03-0.20 in brown and at most 0.04 in
/// hum.
public enum NoiseBand {
    /// The share of frames, quietest first, the noise is read from.
    static let quietestShare = 0.3
    /// Below this the band is left out: DC and the rumble every microphone has.
    static let lowestFrequency = 40.0

    /// The share (0...1) of the noise's power from 40 Hz up that lies at or above `frequency`, or
    /// nil when `samples` are shorter than one 32 ms frame or silent.
    public static func share(above frequency: Double, of samples: ArraySlice<Int16>, sampleRate: Int) -> Double? {
        let length = FFT.size(atLeast: max(2, sampleRate * 32 / 1000))
        let hop = length / 2
        guard samples.count >= length else { return nil }
        let fft = FFT(size: length)
        let window = (0..<length).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(length - 1)) }
        let bins = length / 2 + 1
        var spectra: [(energy: Double, power: [Double])] = []
        for start in stride(from: samples.startIndex, through: samples.endIndex - length, by: hop) {
            var real = (0..<length).map { Double(samples[start + $0]) * window[$0] }
            var imaginary = [Double](repeating: 0, count: length)
            fft.transform(&real, &imaginary)
            let power = (0..<bins).map { real[$0] * real[$0] + imaginary[$0] * imaginary[$0] }
            spectra.append((power.reduce(0, +), power))
        }
        let quietest = spectra.sorted { $0.energy < $1.energy }.prefix(max(1, Int(Double(spectra.count) * quietestShare)))
        // The first bins at or above 40 Hz and at or above `frequency`.
        let resolution = Double(sampleRate) / Double(length)
        let lowest = min(bins, Int((lowestFrequency / resolution).rounded(.up)))
        let first = min(bins, max(lowest, Int((frequency / resolution).rounded(.up))))
        let total = quietest.reduce(0.0) { $0 + $1.power[lowest...].reduce(0, +) }
        let above = quietest.reduce(0.0) { $0 + $1.power[first...].reduce(0, +) }
        return total > 0 ? above / total : nil
    }
}
