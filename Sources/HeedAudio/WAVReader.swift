import Foundation

/// Where a WAV file's format and samples are, read from its chunks. The header walk is shared by
/// `WAVFile` (the whole file in memory) and `WAVReader` (streamed), so both refuse the same files
/// with the same words.
struct WAVLayout {
    var format: WAVFormat
    var blockAlign: Int
    /// The data chunk's bytes within the file.
    var data: Range<Int>

    /// A missing file or a directory, in the words both readers use.
    static func checkIsFile(_ url: URL) throws(AudioError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw .cannotOpen("no such file")
        }
        if isDirectory.boolValue { throw .cannotOpen("is a directory, not a WAV file") }
    }

    /// `read` returns the file's bytes in a range that lies within `0..<size`.
    init(size: Int, read: (Range<Int>) throws(AudioError) -> [UInt8]) throws(AudioError) {
        guard size >= 12 else {
            throw .invalidFormat("not a WAV file: \(size) bytes is too short for a RIFF header")
        }
        let riff = try read(0..<12)
        guard riff[0..<4] == [0x52, 0x49, 0x46, 0x46] /* RIFF */ else {
            if riff[0..<4] == [0x52, 0x49, 0x46, 0x58] || riff[0..<4] == [0x52, 0x46, 0x36, 0x34] {
                throw .unsupported("big-endian (RIFX) and RF64 WAV files are not supported")
            }
            throw .invalidFormat("not a WAV file: no RIFF header")
        }
        guard riff[8..<12] == [0x57, 0x41, 0x56, 0x45] /* WAVE */ else {
            throw .invalidFormat("not a WAV file: RIFF type is not WAVE")
        }

        var format: WAVFormat?
        var blockAlign = 0
        var dataRange: Range<Int>?
        var offset = 12
        // Walk the chunks; unknown ones (LIST, fact, cue, bext, ...) are skipped.
        while offset + 8 <= size {
            let header = try read(offset..<offset + 8)
            let id = String(decoding: header[0..<4], as: UTF8.self)
            let chunkSize = Int(WAVFile.uint32(header, 4))
            let body = offset + 8
            let printableID = id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") } ? id : "?"
            if id == "data" {
                guard format != nil else { throw .invalidFormat("data chunk comes before the fmt chunk") }
                guard body + chunkSize <= size else {
                    throw .invalidFormat("truncated: data chunk declares \(chunkSize) bytes but only \(size - body) are present")
                }
                dataRange = body..<body + chunkSize
                break
            }
            guard body + chunkSize <= size else {
                throw .invalidFormat("chunk '\(printableID)' declares \(chunkSize) bytes, past the end of the file (\(size) bytes)")
            }
            if id == "fmt " {
                // Only the first 64 bytes matter (40 for WAVE_FORMAT_EXTENSIBLE).
                (format, blockAlign) = try WAVFile.parseFormat(try read(body..<body + min(chunkSize, 64))[...])
            }
            offset = body + chunkSize + (chunkSize & 1)  // chunks are padded to even sizes
        }
        guard let format else { throw .invalidFormat("no fmt chunk") }
        guard let dataRange else { throw .invalidFormat("no data chunk") }
        guard !dataRange.isEmpty else { throw .invalidFormat("no audio: the data chunk is empty") }
        guard dataRange.count >= blockAlign else {
            throw .invalidFormat("no audio: the data chunk is shorter than one sample frame")
        }
        self.format = format
        self.blockAlign = blockAlign
        self.data = dataRange
    }
}

/// A recording read a piece at a time, as mono floating-point samples at its own rate.
public protocol AudioSampleReader: AnyObject {
    var format: WAVFormat { get }
    /// The next `frames` sample frames (fewer at the end), channels averaged; nil at the end.
    func read(frames: Int) throws(AudioError) -> [Float]?
}

/// The reader for a recording in any format Heed reads, told by its content: WAV, or FLAC, Ogg
/// Vorbis, Opus and MP3 (`CompressedAudioReader`).
public func audioReader(contentsOf url: URL) throws(AudioError) -> any AudioSampleReader {
    try CompressedAudio.isCompressed(url) ? CompressedAudioReader(contentsOf: url) : WAVReader(contentsOf: url)
}

/// A WAV file read a piece at a time, as mono floating-point samples at its own rate: for inputs
/// as long as a day, which `WAVFile` would hold in memory whole.
public final class WAVReader: AudioSampleReader {
    public let format: WAVFormat
    private let layout: WAVLayout
    private let handle: FileHandle
    /// The next byte of the data chunk to read.
    private var position: Int

    public init(contentsOf url: URL) throws(AudioError) {
        try WAVLayout.checkIsFile(url)
        let handle: FileHandle
        let size: Int
        do {
            handle = try FileHandle(forReadingFrom: url)
            size = Int(try handle.seekToEnd())
        } catch {
            throw .cannotOpen("cannot read: \((error as NSError).localizedDescription)")
        }
        layout = try WAVLayout(size: size) { (range) throws(AudioError) in try Self.read(handle, range) }
        format = layout.format
        position = layout.data.lowerBound
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// The next `frames` sample frames (fewer at the end), channels averaged; nil once the data
    /// chunk is used up. A partial last frame is dropped, as `WAVFile` drops it.
    public func read(frames: Int) throws(AudioError) -> [Float]? {
        let whole = (layout.data.upperBound - position) / layout.blockAlign
        let count = min(frames, whole)
        guard count > 0 else { return nil }
        let bytes = try Self.read(handle, position..<position + count * layout.blockAlign)
        position += bytes.count
        return WAVFile.decodeMono(bytes, 0..<bytes.count, format, layout.blockAlign)
    }

    private static func read(_ handle: FileHandle, _ range: Range<Int>) throws(AudioError) -> [UInt8] {
        do {
            try handle.seek(toOffset: UInt64(range.lowerBound))
            let data = try handle.read(upToCount: range.count) ?? Data()
            guard data.count == range.count else { throw AudioError.cannotOpen("the file ended while reading it (was it truncated meanwhile?)") }
            return [UInt8](data)
        } catch let error as AudioError {
            throw error
        } catch {
            throw .cannotOpen("cannot read: \((error as NSError).localizedDescription)")
        }
    }
}

/// A recording (any format `audioReader` reads) read a second at a time and converted to another
/// rate as 16-bit samples: what the decoder consumes, for `heed recognize` and for paced
/// `listen --input` alike.
public struct ConvertedWAVStream {
    private let reader: any AudioSampleReader
    private var resampler: Resampler
    private var ended = false

    public var format: WAVFormat { reader.format }

    public init(contentsOf url: URL, rate: Int) throws(AudioError) {
        reader = try audioReader(contentsOf: url)
        resampler = Resampler(from: reader.format.sampleRate, to: rate)
    }

    /// The next piece (about a second of the file) at the target rate, then the resampler's
    /// tail, then nil.
    public mutating func next() throws(AudioError) -> [Int16]? {
        guard !ended else { return nil }
        if let piece = try reader.read(frames: reader.format.sampleRate) { return PCM.int16(from: resampler.process(piece)) }
        ended = true
        return PCM.int16(from: resampler.finish())
    }
}
