import Foundation
import HeedTestSupport
import Testing

/// `heed recognize` as a user runs it: output format, errors and exit codes.
@Suite(.timeLimit(.minutes(5))) struct RecognizeCommandTests {
    func json(_ line: Substring) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
    }

    @Test func printsOneJSONLinePerUtteranceWithFieldsInOrder() throws {
        let result = try CLI.run(["recognize", "Audio/demo/stop.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.hasPrefix(#"{"file":"Audio/demo/stop.wav","start":"#))
        #expect(line.contains(#","transcript":"stop","intent":"stop","slots":{},"understood":true,"confidence":"#))
        let object = try json(line)
        #expect(Set(object.keys) == ["file", "start", "end", "transcript", "intent", "slots", "understood", "confidence"])
        #expect((object["start"] as! Double) < (object["end"] as! Double))
        // PocketSphinx's log never reaches our output streams.
        #expect(!result.stderr.contains("INFO:"))
    }

    @Test func severalFilesAndANegative() throws {
        let result = try CLI.run(["recognize", "Audio/demo/start-pause-stop.wav", "Audio/demo/what-time-is-it.wav", "Audio/demo/done.wav"])
        #expect(result.status == 0)
        let objects = try result.stdout.split(separator: "\n").map(json)
        #expect(objects.map { $0["intent"] as? String } == ["start", "pause", "stop", nil, "done"])
        #expect(objects[3]["understood"] as? Bool == false)
        #expect(objects[3]["file"] as? String == "Audio/demo/what-time-is-it.wav")
    }

    @Test func readsRawPCMFromStdin() throws {
        // The demo file's samples after its 44-byte header are raw 16 kHz mono S16LE.
        let wav = try Data(contentsOf: Fixtures.demo.appendingPathComponent("start-pause-stop.wav"))
        let result = try CLI.run(["recognize", "-"], stdin: wav.dropFirst(44))
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map(json)
        #expect(objects.map { $0["intent"] as? String } == ["start", "pause", "stop"])
        #expect(objects.allSatisfy { $0["file"] as? String == "-" })
    }

    @Test func textOutputWhenAsked() throws {
        let result = try CLI.run(["recognize", "--no-json", "Audio/demo/cancel.wav"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Audio/demo/cancel.wav"))
        #expect(result.stdout.contains("cancel  \"cancel\"  confidence"))
        #expect(!result.stdout.contains("{"))
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func brokenFilesGiveOneLineEachAndTheRestIsStillDecoded() throws {
        let corpus = "../shared/corpus/pocketsphinx-test-data"
        let result = try CLI.run(["recognize", "\(corpus)/awful.wav", "\(corpus)/bad.wav", "Audio/demo/stop.wav",
                                  "\(corpus)/evil.wav", "\(corpus)/null.wav"])
        #expect(result.status == 65)
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 4, "\(result.stderr)")
        for (line, name) in zip(errors, ["awful.wav", "bad.wav", "evil.wav", "null.wav"]) {
            #expect(line.hasPrefix("heed: \(corpus)/\(name): "), "\(line)")
        }
        #expect(try result.stdout.split(separator: "\n").map(json).map { $0["intent"] as? String } == ["stop"])
    }

    @Test func missingFileAndDirectoryExit66() throws {
        let missing = try CLI.run(["recognize", "Audio/demo/nope.wav", "Audio/demo/done.wav"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "heed: Audio/demo/nope.wav: no such file\n")
        #expect(missing.stdout.contains("\"intent\":\"done\""))
        let directory = try CLI.run(["recognize", "Audio/demo"])
        #expect(directory.status == 66)
        #expect(directory.stderr == "heed: Audio/demo: is a directory, not a WAV file\n")
    }

    @Test func nonPCMAndTruncatedFilesExit65() throws {
        let directory = try Fixtures.temporaryDirectory()
        let text = directory.appendingPathComponent("notes.wav")
        try Data("just some text renamed to .wav\n".utf8).write(to: text)
        let truncated = directory.appendingPathComponent("cut.wav")
        try Data(contentsOf: Fixtures.demo.appendingPathComponent("stop.wav")).prefix(5000).write(to: truncated)
        let result = try CLI.run(["recognize", text.path, truncated.path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(text.path): not a WAV file: no RIFF header"))
        #expect(result.stderr.contains("\(truncated.path): truncated: data chunk declares"))
    }

    @Test func usageErrorsExit64() throws {
        #expect(try CLI.run(["recognize"]).status == 64)
        #expect(try CLI.run(["recognize", "--min-confidence", "2", "Audio/demo/stop.wav"]).status == 64)
        #expect(try CLI.run(["frobnicate"]).status == 64)
    }

    @Test func badGrammarIsAConfigurationError() throws {
        let result = try CLI.run(["recognize", "--grammar", "/nonexistent.gram", "Audio/demo/stop.wav"])
        #expect(result.status == 78)
        #expect(result.stderr == "heed: cannot read grammar /nonexistent.gram\n")
    }
}
