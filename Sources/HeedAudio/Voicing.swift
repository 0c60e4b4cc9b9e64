import Foundation

/// Finds voiced speech: stretches where the signal repeats at a pitch a human voice can have.
///
/// Every spoken command has a vowel, and a vowel is voiced: the vocal folds make it periodic at
/// 70-400 Hz. The clatter of dishes or tools is not (a burst of band-passed noise can still be
/// decoded as "done"), so a command heard where nothing was voiced is not one. Whispering has no
/// voicing either; a whispered command is not taken.
public enum Voicing {
    /// The lowest and highest pitch looked for, in Hz.
    public static let pitchRange = 70.0...400.0
    /// A frame is voiced when its normalized autocorrelation at some pitch period reaches this.
    public static let minPeriodicity = 0.6
    /// Frames more than this many dB under the loudest frame of the stretch are not looked at
    /// (silence and the quiet tails of words).
    public static let levelRangeDB = 30.0

    /// Seconds of voiced 10 ms frames in `samples`, counting no further than `enough` (so that a
    /// long stretch of speech costs no more than its first vowel).
    public static func voicedDuration<Samples: RandomAccessCollection<Int16>>(in samples: Samples, sampleRate: Int,
                                                                              enough: Double = .infinity) -> Double {
        let values = samples.map { Double($0) }
        let hop = sampleRate / 100
        let window = sampleRate * 3 / 100  // three periods of the lowest pitch fit in 30 ms at 100 Hz
        let shortest = Int((Double(sampleRate) / pitchRange.upperBound).rounded(.down))
        let longest = Int((Double(sampleRate) / pitchRange.lowerBound).rounded(.up))
        guard values.count >= window + longest else { return 0 }
        let starts = Array(stride(from: 0, through: values.count - window - longest, by: hop))
        let energies = starts.map { start in values[start..<start + window].reduce(0) { $0 + $1 * $1 } }
        guard let loudest = energies.max(), loudest > 0 else { return 0 }
        let floor = loudest * pow(10, -levelRangeDB / 10)
        let needed = enough.isFinite ? max(0, Int((enough * 100).rounded(.up))) : .max
        var voiced = 0
        for (index, start) in starts.enumerated() where energies[index] >= floor {
            if voiced >= needed { break }
            if isPeriodic(values, start: start, window: window, lags: shortest...longest) { voiced += 1 }
        }
        return Double(voiced) / 100
    }

    /// Whether the window at `start` correlates with itself one pitch period later, for some
    /// period in `lags`.
    static func isPeriodic(_ x: [Double], start: Int, window: Int, lags: ClosedRange<Int>) -> Bool {
        var energy = 0.0
        for i in start..<start + window { energy += x[i] * x[i] }
        guard energy > 0 else { return false }
        // The shifted window's energy, updated as the lag grows instead of summed afresh.
        var shiftedEnergy = 0.0
        for i in (start + lags.lowerBound)..<(start + lags.lowerBound + window) { shiftedEnergy += x[i] * x[i] }
        for lag in lags {
            if lag > lags.lowerBound {
                let leaving = x[start + lag - 1], entering = x[start + lag + window - 1]
                shiftedEnergy += entering * entering - leaving * leaving
            }
            guard shiftedEnergy > 0 else { continue }
            var product = 0.0
            for i in start..<start + window { product += x[i] * x[i + lag] }
            if product / (energy * shiftedEnergy).squareRoot() >= minPeriodicity { return true }
        }
        return false
    }
}
