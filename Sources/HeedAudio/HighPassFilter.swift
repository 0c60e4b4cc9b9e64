import Foundation

/// A second-order Butterworth high-pass (one biquad): removes mains hum, rumble and DC below
/// the speech band before endpointing. The acoustic model ignores everything below 133 Hz, so
/// decoding loses nothing, but the endpointer would otherwise count that energy as sound.
public struct HighPassFilter: Sendable {
    private let b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    public init(cutoff: Double = 100, sampleRate: Int = 16_000) {
        // Bilinear transform of the analog prototype (RBJ's cookbook), Q = 1/sqrt(2).
        let omega = 2 * Double.pi * cutoff / Double(sampleRate)
        let q = 1 / 2.0.squareRoot()
        let alpha = sin(omega) / (2 * q)
        let cosine = cos(omega)
        let a0 = 1 + alpha
        b0 = (1 + cosine) / 2 / a0
        b1 = -(1 + cosine) / a0
        b2 = (1 + cosine) / 2 / a0
        a1 = -2 * cosine / a0
        a2 = (1 - alpha) / a0
    }

    /// Filters samples in order; takes any collection so a slice of a larger buffer is not copied first.
    public mutating func process<Samples: Collection<Int16>>(_ samples: Samples) -> [Int16] {
        // Called from other modules, a generic loop would run unspecialized, one witness call
        // per sample; the loop below runs over contiguous memory instead.
        if let output = samples.withContiguousStorageIfAvailable({ process(buffer: $0) }) { return output }
        return Array(samples).withUnsafeBufferPointer { process(buffer: $0) }
    }

    private mutating func process(buffer samples: UnsafeBufferPointer<Int16>) -> [Int16] {
        // The state lives in locals during the loop (through `self` it was stored every sample).
        var (x1, x2, y1, y2) = (self.x1, self.x2, self.y1, self.y2)
        let (b0, b1, b2, a1, a2) = (self.b0, self.b1, self.b2, self.a1, self.a2)
        let output = [Int16](unsafeUninitializedCapacity: samples.count) { output, count in
            for (index, sample) in samples.enumerated() {
                let x = Double(sample)
                let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                x2 = x1; x1 = x
                y2 = y1; y1 = y
                output[index] = Int16(max(-32768, min(32767, y.rounded())))
            }
            count = samples.count
        }
        (self.x1, self.x2, self.y1, self.y2) = (x1, x2, y1, y2)
        return output
    }
}
