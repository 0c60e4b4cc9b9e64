import Foundation

/// A streaming sample-rate converter: polyphase windowed-sinc (Kaiser) interpolation at an exact
/// rational ratio, with a low-pass cutoff below the lower of the two Nyquist rates, so that
/// downsampling never folds energy above 8 kHz back into the speech band.
///
/// Feed any number of chunks with `process`, then call `finish` once to flush the filter tail.
/// The output is identical however the input is chunked.
public struct Resampler: Sendable {
    public let inputRate: Int
    public let outputRate: Int
    /// Output advances `step` input samples per `phases` outputs (outputRate/inputRate = phases/step).
    private let phases: Int
    private let step: Int
    /// Taps either side of the interpolation point, in input samples.
    private let halfWidth: Int
    /// `phases` rows of `2 * halfWidth` taps.
    private let table: [Float]

    /// Input not yet fully used; `buffer[0]` is absolute input sample `bufferStart`.
    private var buffer: [Float] = []
    private var bufferStart = 0
    private var totalInput = 0
    private var nextOutput = 0

    /// - Parameter passband: fraction of the lower Nyquist frequency kept (the rest is transition band).
    public init(from inputRate: Int, to outputRate: Int, zeroCrossings: Int = 24, passband: Double = 0.95, kaiserBeta: Double = 8.6) {
        precondition(inputRate > 0 && outputRate > 0, "sample rates must be positive")
        self.inputRate = inputRate
        self.outputRate = outputRate
        let divisor = Self.gcd(inputRate, outputRate)
        phases = outputRate / divisor
        step = inputRate / divisor
        // Cutoff in cycles per input sample, times two (so the sinc's zeros fall at 1/cutoff2 spacing).
        let cutoff2 = min(1.0, Double(outputRate) / Double(inputRate)) * passband
        halfWidth = Int((Double(zeroCrossings) / cutoff2).rounded(.up))
        // Start with half the window of zeros so the first output sample sits at input time 0.
        buffer = [Float](repeating: 0, count: halfWidth)
        bufferStart = -halfWidth

        var table = [Float](repeating: 0, count: phases * 2 * halfWidth)
        let denominator = Self.besselI0(kaiserBeta)
        for phase in 0..<phases {
            let fraction = Double(phase) / Double(phases)
            var row = [Double](repeating: 0, count: 2 * halfWidth)
            for tap in 0..<(2 * halfWidth) {
                // Tap k multiplies input sample (i - halfWidth + 1 + k) for output at input time i + fraction.
                let distance = Double(tap - halfWidth + 1) - fraction
                let ratio = distance / Double(halfWidth)
                guard abs(ratio) < 1 else { continue }
                let window = Self.besselI0(kaiserBeta * (1 - ratio * ratio).squareRoot()) / denominator
                let x = distance * cutoff2
                let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                row[tap] = cutoff2 * sinc * window
            }
            // Unit gain at DC in every phase, so a constant input gives a constant output.
            let sum = row.reduce(0, +)
            for tap in 0..<(2 * halfWidth) { table[phase * 2 * halfWidth + tap] = Float(row[tap] / sum) }
        }
        self.table = table
    }

    public var isPassthrough: Bool { inputRate == outputRate }

    /// Converts the next chunk of input; returns every output sample that is now fully determined.
    public mutating func process(_ input: [Float]) -> [Float] {
        if isPassthrough { return input }
        buffer.append(contentsOf: input)
        totalInput += input.count
        return drain(upTo: totalInput)
    }

    /// Flushes the samples held back for the filter's look-ahead.
    public mutating func finish() -> [Float] {
        if isPassthrough { return [] }
        buffer.append(contentsOf: [Float](repeating: 0, count: halfWidth + 1))
        // The last output is the one that falls at or before the last real input sample.
        let outputs = (totalInput * phases + step - 1) / step
        var out: [Float] = []
        while nextOutput < outputs, let sample = computeNext(available: totalInput + halfWidth + 1) {
            out.append(sample)
        }
        return out
    }

    private mutating func drain(upTo available: Int) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(available * phases / step - nextOutput + 1)
        while let sample = computeNext(available: available) { out.append(sample) }
        // Drop input that no future output can reach.
        let firstNeeded = (nextOutput * step) / phases - halfWidth + 1
        let drop = firstNeeded - bufferStart
        if drop > 4096 {
            buffer.removeFirst(drop)
            bufferStart += drop
        }
        return out
    }

    private mutating func computeNext(available: Int) -> Float? {
        let position = nextOutput * step
        let index = position / phases
        let phase = position % phases
        // Needs input samples index-halfWidth+1 ... index+halfWidth.
        guard index + halfWidth < available else { return nil }
        let first = index - halfWidth + 1 - bufferStart
        let taps = 2 * halfWidth
        var sum: Float = 0
        table.withUnsafeBufferPointer { table in
            buffer.withUnsafeBufferPointer { input in
                let row = phase * taps
                for tap in 0..<taps { sum += table[row + tap] * input[first + tap] }
            }
        }
        nextOutput += 1
        return sum
    }

    /// Converts a whole signal at once.
    public static func convert(_ samples: [Float], from inputRate: Int, to outputRate: Int) -> [Float] {
        var resampler = Resampler(from: inputRate, to: outputRate)
        return resampler.process(samples) + resampler.finish()
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// Modified Bessel function of the first kind, order zero (series; converges fast for beta < 20).
    private static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        while term > 1e-12 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }
}
