import Foundation
import HeedTestSupport
import Testing

/// FLAC, Ogg Vorbis, Opus and MP3 recordings, made from real WAV recordings by Debian's
/// sndfile-convert, are recognized as their WAV originals are: by `recognize`, by `heed test`
/// suites and by `listen --input`, whatever their names say.
struct RecordingFormatTests {
    static let originals = ["real-words/stop-1eddce1d_nohash_3.wav", "real-coffee/0334e17c-b72f-4e1a-ba76-0bb6c110ef94.wav"]
        .map { Fixtures.root.appendingPathComponent("Tests/Golden").appendingPathComponent($0) }
    static let encodings: [(ext: String, flags: [String])] = [("flac", []), ("ogg", ["-vorbis"]), ("opus", ["-opus"]), ("mp3", [])]

    /// `original` encoded as `ext` in `folder`, named `name` (by default the original's name with `ext`).
    static func encoded(_ original: URL, _ ext: String, _ flags: [String], in folder: URL, name: String? = nil) throws -> URL {
        let target = folder.appendingPathComponent(name ?? original.deletingPathExtension().lastPathComponent + "." + ext)
        let convert = Process()
        convert.executableURL = URL(fileURLWithPath: "/usr/bin/sndfile-convert")
        let scratch = folder.appendingPathComponent("scratch." + ext)
        convert.arguments = flags + [original.path, scratch.path]
        try convert.run()
        convert.waitUntilExit()
        try #require(convert.terminationStatus == 0, "sndfile-convert \(flags) \(original.lastPathComponent) failed")
        try FileManager.default.moveItem(at: scratch, to: target)
        return target
    }

    static func intents(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["intent"] as? String
        }
    }

    static let coffee = ["--no-builtins", "--context", "Models/contexts/coffee_maker.yaml"]

    @Test(arguments: encodings.map(\.ext)) func recognizedAsTheirWAVOriginals(ext: String) throws {
        let folder = try Fixtures.temporaryDirectory()
        let flags = Self.encodings.first { $0.ext == ext }!.flags
        for (original, vocabulary) in zip(Self.originals, [[String](), Self.coffee]) {
            let wav = try CLI.run(["recognize", "--json"] + vocabulary + [original.path])
            let file = try Self.encoded(original, ext, flags, in: folder)
            let other = try CLI.run(["recognize", "--json"] + vocabulary + [file.path])
            #expect(other.status == 0, "\(other.stderr)")
            #expect(!Self.intents(wav.stdout).isEmpty && Self.intents(other.stdout) == Self.intents(wav.stdout), "\(other.stdout)")
        }
    }

    /// The format is told by the content: a FLAC file named .wav, and an MP3 named .flac, are read.
    @Test func theContentSaysTheFormatNotTheName() throws {
        let folder = try Fixtures.temporaryDirectory()
        let flac = try Self.encoded(Self.originals[0], "flac", [], in: folder, name: "stop.wav")
        let mp3 = try Self.encoded(Self.originals[0], "mp3", [], in: folder, name: "stop.flac")
        let result = try CLI.run(["recognize", "--json", flac.path, mp3.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.intents(result.stdout) == ["stop", "stop"])
    }

    /// A suite of Opus and MP3 files passes as its WAV originals do, and `listen --input` plays a FLAC.
    @Test func suitesAndListenReadThemToo() throws {
        let folder = try Fixtures.temporaryDirectory()
        _ = try Self.encoded(Self.originals[0], "opus", ["-opus"], in: folder, name: "stop.opus")
        _ = try Self.encoded(Self.originals[0], "mp3", [], in: folder, name: "stop.mp3")
        try "files:\n  stop.opus: {intent: stop}\n  stop.mp3: {intent: stop}\n".write(to: folder.appendingPathComponent("suite.yml"),
                                                                                   atomically: true, encoding: .utf8)
        let suite = try CLI.run(["test", folder.path])
        #expect(suite.status == 0 && suite.stdout.contains("accepted 2/2"), "\(suite.stdout)")
        let flac = try Self.encoded(Self.originals[0], "flac", [], in: folder)
        let listened = try CLI.run(["listen", "--input", flac.path, "--json"])
        #expect(listened.status == 0, "\(listened.stderr)")
        #expect(listened.stdout.contains(#""intent":"stop""#), "\(listened.stdout)")
    }

    /// On stdin a recording is told from raw PCM by its first bytes: a FLAC, an Ogg Vorbis and a
    /// WAV file are heard as the WAV file named on the command line is.
    @Test func standardInputTakesRecordingsToo() throws {
        let folder = try Fixtures.temporaryDirectory()
        for file in [try Self.encoded(Self.originals[0], "flac", [], in: folder), try Self.encoded(Self.originals[0], "ogg", ["-vorbis"], in: folder),
                     Self.originals[0]] {
            let result = try CLI.run(["recognize", "--json", "-"], stdin: try Data(contentsOf: file))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.intents(result.stdout) == ["stop"], "\(file.lastPathComponent): \(result.stdout)")
        }
    }

    /// A FLAC or Ogg header over nothing decodable is bad input: one line, exit 65, as for a bad WAV.
    @Test(arguments: ["fLaC", "OggS"]) func aBrokenRecordingIsBadInput(magic: String) throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("broken.audio")
        try Data(magic.utf8 + [UInt8](repeating: 7, count: 64)).write(to: file)
        let result = try CLI.run(["recognize", file.path])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("heed: \(file.path): not a recording Heed can read") && result.stderr.split(separator: "\n").count == 1,
                "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
