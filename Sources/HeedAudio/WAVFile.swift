import Foundation

/// Why audio could not be read. Every case names the problem in words a user can act on.
public enum AudioError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The file could not be opened or read at all (missing, a directory, no permission).
    case cannotOpen(String)
    /// The bytes are not a WAV file Heed can decode.
    case invalidFormat(String)
    /// The WAV file is well formed but holds something Heed does not decode.
    case unsupported(String)

    public var description: String {
        switch self {
        case .cannotOpen(let why): return why
        case .invalidFormat(let why): return why
        case .unsupported(let why): return why
        }
    }
}

/// The sample encodings found in real WAV files.
public enum SampleEncoding: Equatable, Sendable {
    case unsignedInt8
    case signedInt16
    case signedInt24
    case signedInt32
    case float32
    case float64

    var bytesPerSample: Int {
        switch self {
        case .unsignedInt8: return 1
        case .signedInt16: return 2
        case .signedInt24: return 3
        case .signedInt32, .float32: return 4
        case .float64: return 8
        }
    }
}

/// The format a WAV header declares.
public struct WAVFormat: Equatable, Sendable {
    public var sampleRate: Int
    public var channels: Int
    public var encoding: SampleEncoding
}

/// A RIFF/WAVE file decoded to mono floating-point samples in [-1, 1] at its own rate.
///
/// The whole file is read into memory, so a header that claims gigabytes of data can never make
/// us allocate more than the file's real size.
public struct WAVFile: Sendable {
    public let format: WAVFormat
    /// Mono samples (channels averaged), at `format.sampleRate`.
    public let samples: [Float]

    public var duration: Double { Double(samples.count) / Double(format.sampleRate) }

    /// Rates a microphone or recorder produces; anything outside is almost certainly a broken header.
    public static let supportedRates = 4_000...192_000
    public static let maxChannels = 32

    /// Reads a recording in any format Heed reads (told by its content): WAV, or FLAC, Ogg Vorbis,
    /// Opus and MP3 through `CompressedAudioReader`.
    public init(contentsOf url: URL) throws(AudioError) {
        try WAVLayout.checkIsFile(url)
        if CompressedAudio.isCompressed(url) {
            let reader = try CompressedAudioReader(contentsOf: url)
            var samples: [Float] = []
            while let piece = try reader.read(frames: reader.format.sampleRate) { samples += piece }
            self.init(format: reader.format, samples: samples)
            return
        }
        let data: Data
        do { data = try Data(contentsOf: url, options: .mappedIfSafe) } catch {
            throw .cannotOpen("cannot read: \((error as NSError).localizedDescription)")
        }
        try self.init(data: data)
    }

    init(format: WAVFormat, samples: [Float]) {
        self.format = format
        self.samples = samples
    }

    public init(data: Data) throws(AudioError) {
        let bytes = [UInt8](data)
        let layout = try WAVLayout(size: bytes.count) { Array(bytes[$0]) }
        // A partial last frame (a recorder killed mid-write) is dropped by decodeMono; the rest is usable.
        self.format = layout.format
        self.samples = Self.decodeMono(bytes, layout.data, layout.format, layout.blockAlign)
    }

    static func parseFormat(_ chunk: ArraySlice<UInt8>) throws(AudioError) -> (WAVFormat, Int) {
        let bytes = Array(chunk)
        guard bytes.count >= 16 else { throw .invalidFormat("fmt chunk is \(bytes.count) bytes, shorter than 16") }
        var tag = Int(uint16(bytes, 0))
        let channels = Int(uint16(bytes, 2))
        let rate = Int(uint32(bytes, 4))
        let byteRate = Int(uint32(bytes, 8))
        let blockAlign = Int(uint16(bytes, 12))
        let bits = Int(uint16(bytes, 14))
        if tag == 0xFFFE {  // WAVE_FORMAT_EXTENSIBLE: the real tag is the first two bytes of the sub-format GUID.
            guard bytes.count >= 40 else { throw .invalidFormat("extensible fmt chunk is \(bytes.count) bytes, shorter than 40") }
            tag = Int(uint16(bytes, 24))
        }
        guard channels > 0 else { throw .invalidFormat("header declares 0 channels") }
        guard channels <= maxChannels else { throw .unsupported("header declares \(channels) channels (at most \(maxChannels) supported)") }
        guard supportedRates.contains(rate) else {
            throw .unsupported("sample rate \(rate) Hz is outside \(supportedRates.lowerBound)-\(supportedRates.upperBound) Hz")
        }
        let encoding: SampleEncoding
        switch (tag, bits) {
        case (1, 8): encoding = .unsignedInt8
        case (1, 16): encoding = .signedInt16
        case (1, 24): encoding = .signedInt24
        case (1, 32): encoding = .signedInt32
        case (3, 32): encoding = .float32
        case (3, 64): encoding = .float64
        case (1, _), (3, _): throw .unsupported("\(bits)-bit \(tag == 1 ? "PCM" : "float") samples are not supported")
        default:
            throw .unsupported("compressed WAV (\(codecName(tag))) is not supported; convert it to PCM, e.g. `sox in.wav -e signed -b 16 out.wav`")
        }
        let expectedAlign = encoding.bytesPerSample * channels
        guard blockAlign == expectedAlign else {
            throw .invalidFormat("block align \(blockAlign) does not match \(channels) channel(s) of \(bits)-bit samples (expected \(expectedAlign))")
        }
        guard byteRate == rate * blockAlign else {
            throw .invalidFormat("byte rate \(byteRate) does not match \(rate) Hz x \(blockAlign) bytes per frame")
        }
        return (WAVFormat(sampleRate: rate, channels: channels, encoding: encoding), blockAlign)
    }

    private static func codecName(_ tag: Int) -> String {
        switch tag {
        case 2: return "MS ADPCM"
        case 6: return "A-law"
        case 7: return "mu-law"
        case 0x11: return "IMA ADPCM"
        case 0x55: return "MP3"
        default: return String(format: "format tag 0x%04X", tag)
        }
    }

    static func decodeMono(_ bytes: [UInt8], _ range: Range<Int>, _ format: WAVFormat, _ blockAlign: Int) -> [Float] {
        let frames = range.count / blockAlign
        let channels = format.channels
        let width = format.encoding.bytesPerSample
        var out = [Float](repeating: 0, count: frames)
        bytes.withUnsafeBytes { raw in
            let scale = 1 / Float(channels)
            for frame in 0..<frames {
                var sum: Float = 0
                let frameStart = range.lowerBound + frame * blockAlign
                for channel in 0..<channels {
                    let at = frameStart + channel * width
                    switch format.encoding {
                    case .unsignedInt8:
                        sum += (Float(raw[at]) - 128) / 128
                    case .signedInt16:
                        sum += Float(Int16(bitPattern: UInt16(raw[at]) | UInt16(raw[at + 1]) << 8)) / 32768
                    case .signedInt24:
                        let value = Int32(bitPattern: UInt32(raw[at]) << 8 | UInt32(raw[at + 1]) << 16 | UInt32(raw[at + 2]) << 24) >> 8
                        sum += Float(value) / 8_388_608
                    case .signedInt32:
                        sum += Float(Int32(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian)) / 2_147_483_648
                    case .float32:
                        let value = Float(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian)
                        sum += value.isFinite ? max(-1, min(1, value)) : 0
                    case .float64:
                        let value = Double(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian)
                        sum += value.isFinite ? Float(max(-1, min(1, value))) : 0
                    }
                }
                out[frame] = sum * scale
            }
        }
        return out
    }

    static func uint16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
    static func uint32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}

extension WAVFile {
    /// Writes 16-bit PCM mono, the format Heed decodes natively. Used for fixtures and debug captures.
    public static func encode(samples: [Int16], sampleRate: Int) -> Data {
        var data = Data()
        func append32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        let payload = samples.count * 2
        data.append(contentsOf: Array("RIFF".utf8)); append32(UInt32(36 + payload))
        data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); append32(16)
        append16(1); append16(1); append32(UInt32(sampleRate)); append32(UInt32(sampleRate * 2)); append16(2); append16(16)
        data.append(contentsOf: Array("data".utf8)); append32(UInt32(payload))
        for s in samples { append16(UInt16(bitPattern: s)) }
        return data
    }
}
