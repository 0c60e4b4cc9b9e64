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
        // Running sums of squares: any window's energy in two lookups, the shifted ones included.
        var squares = [0.0]
        squares.reserveCapacity(values.count + 1)
        for value in values { squares.append(squares[squares.count - 1] + value * value) }
        let energy = { (start: Int) in squares[start + window] - squares[start] }
        let starts = Array(stride(from: 0, through: values.count - window - longest, by: hop))
        guard let loudest = starts.map(energy).max(), loudest > 0 else { return 0 }
        let floor = loudest * pow(10, -levelRangeDB / 10)
        let needed = enough.isFinite ? max(0, Int((enough * 100).rounded(.up))) : .max
        var voiced = 0
        for start in starts where energy(start) >= floor {
            if voiced >= needed { break }
            if isPeriodic(values, start: start, window: window, lags: shortest...longest, energy: energy) { voiced += 1 }
        }
        return Double(voiced) / 100
    }

    /// Whether the window at `start` correlates with itself one pitch period later, for some
    /// period in `lags`; `energy` gives the energy of the window that starts at a sample.
    static func isPeriodic(_ x: [Double], start: Int, window: Int, lags: ClosedRange<Int>, energy: (Int) -> Double) -> Bool {
        let own = energy(start)
        guard own > 0 else { return false }
        for lag in lags {
            let shifted = energy(start + lag)
            guard shifted > 0 else { continue }
            var product = 0.0
            for i in start..<start + window { product += x[i] * x[i + lag] }
            if product / (own * shifted).squareRoot() >= minPeriodicity { return true }
        }
        return false
    }
}
