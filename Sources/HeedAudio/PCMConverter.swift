/// Raw PCM as a network peer sends it (a Wyoming client, a Hermes audio frame): any rate,
/// 8-, 16-, 24- or 32-bit little-endian samples, any number of interleaved channels, in pieces
/// that may split a frame anywhere. Converted to mono 16-bit samples at one rate.
public struct PCMConverter: Sendable {
    /// What a peer announces its audio to be.
    public struct Format: Equatable, Sendable, CustomStringConvertible {
        public var rate: Int
        /// Bytes per sample: 1 (unsigned, as in WAV), 2, 3 or 4 (signed).
        public var width: Int
        public var channels: Int

        /// Checks the format is one Heed can convert.
        public init(rate: Int, width: Int, channels: Int) throws(AudioError) {
            guard WAVFile.supportedRates.contains(rate) else {
                throw .unsupported("sample rate \(rate) Hz is not supported (\(WAVFile.supportedRates.lowerBound)-\(WAVFile.supportedRates.upperBound))")
            }
            guard (1...4).contains(width) else { throw .unsupported("sample width \(width) bytes is not supported (1-4)") }
            guard (1...WAVFile.maxChannels).contains(channels) else { throw .unsupported("\(channels) channels is not supported (1-\(WAVFile.maxChannels))") }
            self.rate = rate
            self.width = width
            self.channels = channels
        }

        public var bytesPerFrame: Int { width * channels }
        public var description: String { "\(rate) Hz, \(8 * width)-bit, \(channels) ch" }
    }

    public let format: Format
    private var resampler: Resampler
    /// The bytes of a frame split across pieces.
    private var partial: [UInt8] = []

    public init(from format: Format, to rate: Int) {
        self.format = format
        resampler = Resampler(from: format.rate, to: rate)
    }

    /// The samples in the next piece of bytes (those of a frame it splits wait for the next piece).
    public mutating func convert(_ bytes: some Collection<UInt8>) -> [Int16] {
        partial.append(contentsOf: bytes)
        let frames = partial.count / format.bytesPerFrame
        guard frames > 0 else { return [] }
        var mono = [Float](repeating: 0, count: frames)
        partial.withUnsafeBufferPointer { raw in
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<format.channels {
                    sum += Self.sample(raw, at: (frame * format.channels + channel) * format.width, width: format.width)
                }
                mono[frame] = sum / Float(format.channels)
            }
        }
        partial.removeFirst(frames * format.bytesPerFrame)
        return PCM.int16(from: resampler.isPassthrough ? mono : resampler.process(mono))
    }

    /// The samples the resampler still holds; a split frame at the end is dropped.
    public mutating func finish() -> [Int16] {
        partial = []
        return resampler.isPassthrough ? [] : PCM.int16(from: resampler.finish())
    }

    /// One little-endian sample in [-1, 1).
    private static func sample(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, width: Int) -> Float {
        switch width {
        case 1:
            return (Float(bytes[offset]) - 128) / 128
        case 2:
            return Float(Int16(bitPattern: UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8)) / 32768
        case 3:
            let value = Int32(bitPattern: UInt32(bytes[offset]) << 8 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 24)
            return Float(value >> 8) / 8_388_608
        default:
            let value = Int32(bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24)
            return Float(value) / 2_147_483_648
        }
    }
}
