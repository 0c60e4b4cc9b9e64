/// Conversions between the sample formats on Heed's audio path.
public enum PCM {
    /// Floating-point samples in [-1, 1] to 16-bit, rounding and clipping.
    public static func int16(from samples: [Float]) -> [Int16] {
        samples.map { sample in
            let scaled = (sample * 32768).rounded()
            return Int16(max(-32768, min(32767, scaled.isFinite ? scaled : 0)))
        }
    }

    /// 16-bit samples to floating point in [-1, 1).
    public static func float(from samples: [Int16]) -> [Float] {
        samples.map { Float($0) / 32768 }
    }

    /// Little-endian signed 16-bit bytes (raw S16LE) to samples; a trailing odd byte is ignored.
    public static func int16(littleEndianBytes bytes: [UInt8]) -> [Int16] {
        (0..<bytes.count / 2).map { Int16(bitPattern: UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8) }
    }
}
