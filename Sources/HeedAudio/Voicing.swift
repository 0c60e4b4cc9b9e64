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
        guard let frames = Frames(samples, sampleRate: sampleRate) else { return 0 }
        let floor = frames.loudest * pow(10, -levelRangeDB / 10)
        let needed = enough.isFinite ? max(0, Int((enough * 100).rounded(.up))) : .max
        var voiced = 0
        for frame in frames.energies.indices where frames.energies[frame] >= floor {
            if voiced >= needed { break }
            if frames.isVoiced(frame) { voiced += 1 }
        }
        return Double(voiced) / 100
    }

    /// Seconds in the longest run of 10 ms frames that are not voiced yet are within `withinDB`
    /// of the loudest voiced frame: a burst of clatter, a door, a dropped tool. Speech's own
    /// unvoiced sounds (s, sh, t) are short or well under its vowels. 0 when nothing is voiced.
    public static func longestLoudUnvoicedRun<Samples: RandomAccessCollection<Int16>>(in samples: Samples, sampleRate: Int,
                                                                                       withinDB: Double) -> Double {
        Double(loudUnvoicedRuns(in: samples, sampleRate: sampleRate, withinDB: withinDB).map(\.count).max() ?? 0) / 100
    }

    /// The runs of 10 ms frames (frame i begins at sample i * sampleRate / 100) that are not voiced
    /// yet are within `withinDB` of the loudest voiced frame (`longestLoudUnvoicedRun`), of at
    /// least `minimumFrames` frames each, in order.
    public static func loudUnvoicedRuns<Samples: RandomAccessCollection<Int16>>(in samples: Samples, sampleRate: Int,
                                                                                 withinDB: Double, minimumFrames: Int = 1) -> [Range<Int>] {
        guard let frames = Frames(samples, sampleRate: sampleRate) else { return [] }
        let floor = frames.loudest * pow(10, -levelRangeDB / 10)
        // Loudest first, each frame looked into once, down to `withinDB` under the loudest voiced
        // one: in speech the loudest frames are vowels, so few frames are looked into.
        let byEnergy = frames.energies.indices.filter { frames.energies[$0] >= floor }.sorted { frames.energies[$0] > frames.energies[$1] }
        var voiced = [Bool](repeating: false, count: frames.energies.count)
        var threshold: Double?
        for frame in byEnergy {
            if let threshold, frames.energies[frame] < threshold { break }
            voiced[frame] = frames.isVoiced(frame)
            if threshold == nil, voiced[frame] { threshold = frames.energies[frame] * pow(10, -withinDB / 10) }
        }
        guard let threshold else { return [] }
        var runs: [Range<Int>] = []
        var start: Int?
        for frame in 0...frames.energies.count {  // one past the end closes a run that reaches it
            let loud = frame < frames.energies.count && frames.energies[frame] >= threshold && !voiced[frame]
            if loud, start == nil { start = frame }
            if !loud, let first = start {
                if frame - first >= max(1, minimumFrames) { runs.append(first..<frame) }
                start = nil
            }
        }
        return runs
    }

    /// 10 ms frames of 30 ms windows (three periods of the lowest pitch fit in 30 ms at 100 Hz),
    /// with their energies from running sums of squares: any window's energy in two lookups.
    private struct Frames {
        let values: [Double]
        let window: Int
        let hop: Int
        let lags: ClosedRange<Int>
        let squares: [Double]
        let energies: [Double]
        let loudest: Double

        init?<Samples: RandomAccessCollection<Int16>>(_ samples: Samples, sampleRate: Int) {
            values = samples.map { Double($0) }
            hop = sampleRate / 100
            window = sampleRate * 3 / 100
            let shortest = Int((Double(sampleRate) / pitchRange.upperBound).rounded(.down))
            let longest = Int((Double(sampleRate) / pitchRange.lowerBound).rounded(.up))
            guard values.count >= window + longest else { return nil }
            lags = shortest...longest
            var squares = [0.0]
            squares.reserveCapacity(values.count + 1)
            for value in values { squares.append(squares[squares.count - 1] + value * value) }
            self.squares = squares
            energies = stride(from: 0, through: values.count - window - longest, by: hop).map { [window] in squares[$0 + window] - squares[$0] }
            guard let loudest = energies.max(), loudest > 0 else { return nil }
            self.loudest = loudest
        }

        func energy(at start: Int) -> Double { squares[start + window] - squares[start] }

        func isVoiced(_ frame: Int) -> Bool {
            Voicing.isPeriodic(values, start: frame * hop, window: window, lags: lags, energy: energy(at:))
        }
    }

    /// Whether the window at `start` correlates with itself one pitch period later, for some
    /// period in `lags`; `energy` gives the energy of the window that starts at a sample.
    static func isPeriodic(_ x: [Double], start: Int, window: Int, lags: ClosedRange<Int>, energy: (Int) -> Double) -> Bool {
        let own = energy(start)
        guard own > 0, start >= 0, start + window + lags.upperBound <= x.count else { return false }
        // This loop is most of the cost of telling clatter from speech: four products at a time.
        return x.withUnsafeBufferPointer { x in
            let base = UnsafeRawPointer(x.baseAddress!)
            let step = MemoryLayout<Double>.stride
            for lag in lags {
                let shifted = energy(start + lag)
                guard shifted > 0 else { continue }
                var sums = SIMD4<Double>()
                var i = start
                while i + 4 <= start + window {
                    sums += base.loadUnaligned(fromByteOffset: i * step, as: SIMD4<Double>.self)
                        * base.loadUnaligned(fromByteOffset: (i + lag) * step, as: SIMD4<Double>.self)
                    i += 4
                }
                var product = sums.sum()
                while i < start + window { product += x[i] * x[i + lag]; i += 1 }
                if product / (own * shifted).squareRoot() >= minPeriodicity { return true }
            }
            return false
        }
    }
}
