import Foundation
import HeedTestSupport
import Testing
@testable import HeedAudio

/// Builds a WAV file byte by byte, so each test states exactly what its header says.
struct WAVBuilder {
    var tag: UInt16 = 1
    var channels: UInt16 = 1
    var rate: UInt32 = 16_000
    var bits: UInt16 = 16
    var blockAlign: UInt16?
    var byteRate: UInt32?
    var extraChunks: [(String, [UInt8])] = []
    var payload: [UInt8] = []
    var declaredDataSize: UInt32?
    var extensible = false

    func bytes() -> Data {
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        let align = blockAlign ?? channels * bits / 8
        d.append(contentsOf: Array("RIFF".utf8)); u32(0)
        d.append(contentsOf: Array("WAVE".utf8))
        for (id, body) in extraChunks {
            d.append(contentsOf: Array(id.utf8)); u32(UInt32(body.count)); d.append(contentsOf: body)
            if body.count % 2 == 1 { d.append(0) }
        }
        d.append(contentsOf: Array("fmt ".utf8)); u32(extensible ? 40 : 16)
        u16(extensible ? 0xFFFE : tag); u16(channels); u32(rate); u32(byteRate ?? rate * UInt32(align)); u16(align); u16(bits)
        if extensible {
            u16(22); u16(bits); u32(0)
            u16(tag); d.append(contentsOf: [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])
        }
        d.append(contentsOf: Array("data".utf8)); u32(declaredDataSize ?? UInt32(payload.count)); d.append(contentsOf: payload)
        let riffSize = UInt32(d.count - 8)
        d.replaceSubrange(4..<8, with: withUnsafeBytes(of: riffSize.littleEndian) { Array($0) })
        return d
    }
}

func le16(_ values: [Int16]) -> [UInt8] { values.flatMap { v in withUnsafeBytes(of: v.littleEndian) { Array($0) } } }

@Suite struct WAVFileTests {
    @Test func reads16BitMono() throws {
        let wav = try WAVFile(data: WAVBuilder(payload: le16([0, 16384, -16384, 32767])).bytes())
        #expect(wav.format == WAVFormat(sampleRate: 16_000, channels: 1, encoding: .signedInt16))
        #expect(wav.samples == [0, 0.5, -0.5, Float(32767) / 32768])
    }

    @Test func averagesStereoToMono() throws {
        let wav = try WAVFile(data: WAVBuilder(channels: 2, rate: 44_100, payload: le16([16384, 0, -16384, -16384])).bytes())
        #expect(wav.format.channels == 2)
        #expect(wav.samples == [0.25, -0.5])
    }

    @Test func readsOtherSampleWidths() throws {
        let u8 = try WAVFile(data: WAVBuilder(bits: 8, payload: [128, 255, 0]).bytes())
        #expect(u8.samples == [0, 127.0 / 128, -1])
        let s24 = try WAVFile(data: WAVBuilder(bits: 24, payload: [0x00, 0x00, 0x40, 0x00, 0x00, 0xC0]).bytes())
        #expect(s24.samples == [0.5, -0.5])
        let s32 = try WAVFile(data: WAVBuilder(bits: 32, payload: [0, 0, 0, 0x40, 0, 0, 0, 0xC0]).bytes())
        #expect(s32.samples == [0.5, -0.5])
        let f32 = try WAVFile(data: WAVBuilder(tag: 3, bits: 32, payload: withUnsafeBytes(of: Float(0.25).bitPattern.littleEndian) { Array($0) }).bytes())
        #expect(f32.samples == [0.25])
        let extensible = try WAVFile(data: WAVBuilder(bits: 16, payload: le16([8192]), extensible: true).bytes())
        #expect(extensible.samples == [0.25])
    }

    @Test func skipsListAndFactChunksIncludingOddSizes() throws {
        let builder = WAVBuilder(extraChunks: [("LIST", Array("INFOISFT\u{5}\0\0\0heed\0".utf8)), ("fact", [1, 2, 3])], payload: le16([100, 200]))
        #expect(try WAVFile(data: builder.bytes()).samples.count == 2)
    }

    @Test func dropsPartialLastFrame() throws {
        let wav = try WAVFile(data: WAVBuilder(channels: 2, payload: le16([1, 2, 3])).bytes())
        #expect(wav.samples.count == 1)
    }

    @Test func refusesWhatItCannotDecode() {
        func error(_ builder: WAVBuilder) -> String {
            do { _ = try WAVFile(data: builder.bytes()); return "no error" } catch { return error.description }
        }
        #expect(error(WAVBuilder(tag: 7, bits: 8, payload: [1, 2])).contains("mu-law"))
        #expect(error(WAVBuilder(tag: 0x55, payload: [1, 2])).contains("MP3"))
        #expect(error(WAVBuilder(channels: 0, blockAlign: 2, payload: [1, 2])).contains("0 channels"))
        #expect(error(WAVBuilder(rate: 0, payload: [1, 2])).contains("sample rate 0 Hz"))
        #expect(error(WAVBuilder(bits: 12, blockAlign: 2, payload: [1, 2])).contains("12-bit"))
        #expect(error(WAVBuilder(blockAlign: 3, payload: [1, 2, 3])).contains("block align"))
        #expect(error(WAVBuilder(byteRate: 1, payload: [1, 2])).contains("byte rate"))
        #expect(error(WAVBuilder(payload: [])).contains("no audio"))
        // A header that claims 4 GB of data is refused without allocating it.
        #expect(error(WAVBuilder(payload: [1, 2], declaredDataSize: 0xFFFF_FFF0)).contains("truncated"))
    }

    @Test func refusesNonWAVBytes() {
        #expect(throws: AudioError.invalidFormat("not a WAV file: no RIFF header")) { try WAVFile(data: Data("ID3 this is an mp3 file".utf8)) }
        #expect(throws: AudioError.invalidFormat("not a WAV file: 3 bytes is too short for a RIFF header")) { try WAVFile(data: Data([1, 2, 3])) }
        #expect(throws: AudioError.invalidFormat("not a WAV file: RIFF type is not WAVE")) { try WAVFile(data: Data("RIFF\u{4}\0\0\0AVI LIST".utf8)) }
    }

    @Test func missingFileAndDirectoryCannotBeOpened() throws {
        #expect(throws: AudioError.cannotOpen("no such file")) { try WAVFile(contentsOf: URL(fileURLWithPath: "/nonexistent/x.wav")) }
        #expect(throws: AudioError.cannotOpen("is a directory, not a WAV file")) { try WAVFile(contentsOf: FileManager.default.temporaryDirectory) }
    }

    /// The corpus's deliberately broken files, each with the problem it has.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing), arguments: [
        ("awful.wav", "sample rate 1092676 Hz"),
        ("bad.wav", "chunk 'fmt ' declares"),
        ("evil.wav", "chunk 'HURF' declares"),
        ("null.wav", "no audio"),
    ])
    func brokenCorpusFiles(name: String, problem: String) {
        do {
            _ = try WAVFile(contentsOf: Fixtures.corpus.appendingPathComponent(name))
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.description.contains(problem), "\(name): \(error.description)")
        }
    }

    /// `WAVReader` streams what `WAVFile` reads whole: the same samples, in pieces of any size.
    @Test(arguments: [1, 777, 16_000])
    func readerStreamsTheSameSamples(piece: Int) throws {
        let directory = try Fixtures.temporaryDirectory()
        let stereo = directory.appendingPathComponent("stereo.wav")
        try WAVBuilder(channels: 2, rate: 44_100, payload: le16((0..<3001).map { Int16(truncatingIfNeeded: $0 * 37) })).bytes().write(to: stereo)
        for url in [Fixtures.demo.appendingPathComponent("start-pause-stop.wav"), stereo] {
            let whole = try WAVFile(contentsOf: url)
            let reader = try WAVReader(contentsOf: url)
            var streamed: [Float] = []
            while let next = try reader.read(frames: piece) {
                #expect(next.count <= piece)
                streamed += next
            }
            #expect(reader.format == whole.format)
            #expect(streamed == whole.samples, "\(url.lastPathComponent) in pieces of \(piece)")
        }
    }

    /// Both readers refuse a broken file with the same words.
    @Test func readerRefusesWhatWAVFileRefuses() throws {
        let directory = try Fixtures.temporaryDirectory()
        var files: [URL] = []
        for (index, builder) in [WAVBuilder(tag: 7, bits: 8, payload: [1, 2]), WAVBuilder(channels: 0, blockAlign: 2, payload: [1, 2]),
                                 WAVBuilder(rate: 0, payload: [1, 2]), WAVBuilder(payload: []),
                                 WAVBuilder(payload: [1, 2], declaredDataSize: 0xFFFF_FFF0), WAVBuilder(extensible: true)].enumerated() {
            let file = directory.appendingPathComponent("\(index).wav")
            try builder.bytes().write(to: file)
            files.append(file)
        }
        let text = directory.appendingPathComponent("text.wav")
        try Data("ID3 this is an mp3 file".utf8).write(to: text)
        files += [text, directory.appendingPathComponent("absent.wav"), directory]
        if Fixtures.corpusAvailable {
            files += ["awful.wav", "bad.wav", "evil.wav", "null.wav"].map { Fixtures.corpus.appendingPathComponent($0) }
        }
        for file in files {
            func error(_ read: () throws -> Void) -> AudioError? {
                do { try read(); return nil } catch { return error as? AudioError }
            }
            let whole = error { _ = try WAVFile(contentsOf: file) }
            let streamed = error { _ = try audioReader(contentsOf: file) }
            #expect(whole != nil, "\(file.lastPathComponent) was accepted")
            #expect(streamed == whole, "\(file.lastPathComponent)")
        }
    }

    @Test func roundTripsItsOwnEncoding() throws {
        let samples: [Int16] = [0, 1, -1, 32767, -32768, 1234]
        let wav = try WAVFile(data: WAVFile.encode(samples: samples, sampleRate: 16_000))
        #expect(PCM.int16(from: wav.samples) == samples)
    }
}
