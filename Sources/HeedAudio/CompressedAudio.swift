import CSndFile
import Foundation

/// Recordings in FLAC, Ogg Vorbis, Opus and MP3, told apart from WAV by their content (not their
/// name) and decoded by libsndfile: the one place Heed calls it.
public enum CompressedAudio {
    /// How a FLAC, an Ogg (Vorbis, Opus) and a tagged MP3 stream start.
    static let magic = ["fLaC", "OggS", "ID3"].map { Array($0.utf8) }
    /// How a WAV file starts.
    static let wavMagic = ["RIFF", "RF64"].map { Array($0.utf8) }

    /// Whether `head`, the first bytes of some input, begin a recording (WAV or compressed) rather
    /// than raw samples; for stdin, which has no name. An untagged MP3's sync word is not looked
    /// for here: raw samples can begin with it.
    public static func startsRecording(_ head: some Collection<UInt8>) -> Bool {
        (magic + wavMagic).contains { head.starts(with: $0) }
    }

    /// Whether the file's first bytes are a FLAC, Ogg or MP3 stream's (false when unreadable).
    static func isCompressed(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 4), head.count >= 2 else { return false }
        let bytes = [UInt8](head)
        if magic.contains(where: { bytes.starts(with: $0) }) { return true }
        // An MPEG audio frame without an ID3 tag starts with an 11-bit sync word.
        return bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0
    }
}

/// A FLAC, Ogg Vorbis, Opus or MP3 file read a piece at a time, as mono floating-point samples
/// at its own rate, like `WAVReader`.
public final class CompressedAudioReader: AudioSampleReader {
    /// The stream's rate and channels; `encoding` is that of the decoded samples (32-bit float).
    public let format: WAVFormat
    private let file: OpaquePointer

    public init(contentsOf url: URL) throws(AudioError) {
        try WAVLayout.checkIsFile(url)
        var info = SF_INFO()
        guard let file = sf_open(url.path, Int32(SFM_READ), &info) else {
            let why = String(cString: sf_strerror(nil)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw .invalidFormat("not a recording Heed can read (\(why))")
        }
        guard WAVFile.supportedRates.contains(Int(info.samplerate)) else {
            sf_close(file)
            throw .unsupported("\(info.samplerate) Hz is outside the \(WAVFile.supportedRates.lowerBound)-\(WAVFile.supportedRates.upperBound) Hz a recording can have")
        }
        guard (1...WAVFile.maxChannels).contains(Int(info.channels)) else {
            sf_close(file)
            throw .unsupported("\(info.channels) channels; Heed reads 1 to \(WAVFile.maxChannels)")
        }
        self.file = file
        format = WAVFormat(sampleRate: Int(info.samplerate), channels: Int(info.channels), encoding: .float32)
    }

    deinit { sf_close(file) }

    /// The next `frames` sample frames (fewer at the end), channels averaged; nil at the end.
    public func read(frames: Int) throws(AudioError) -> [Float]? {
        let channels = format.channels
        var interleaved = [Float](repeating: 0, count: frames * channels)
        let got = Int(interleaved.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(frames)) })
        if got <= 0 {
            guard sf_error(file) == 0 else {
                throw .invalidFormat("the recording is damaged: \(String(cString: sf_strerror(file)))")
            }
            return nil
        }
        guard channels > 1 else { return Array(interleaved.prefix(got)) }
        return (0..<got).map { frame in
            interleaved[frame * channels..<(frame + 1) * channels].reduce(0, +) / Float(channels)
        }
    }
}
