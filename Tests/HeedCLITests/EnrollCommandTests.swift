import Foundation
import HeedTestSupport
import Testing

/// `heed enroll` and `--speaker` as a user runs them: the profile, its use, errors and exit codes.
@Suite(.timeLimit(.minutes(40))) struct EnrollCommandTests {
    /// A list in a temporary folder, its recordings named relative to the repository.
    func list(_ lines: [String]) throws -> URL {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("enroll.txt")
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func recording(_ voice: String, _ number: Int) -> String {
        Fixtures.audio.appendingPathComponent("enroll/\(voice)/\(String(format: "%02d", number)).wav").path
    }

    @Test func printsTheSentencesToRecord() throws {
        let result = try CLI.run(["enroll", "--prompts"])
        #expect(result.status == 0, "\(result.stderr)")
        let sentences = result.stdout.split(separator: "\n")
        #expect(sentences.count == 20)
        #expect(sentences.first == "The birch canoe slid on the smooth planks")
        // The committed recordings read exactly these.
        let listed = try String(contentsOf: Fixtures.audio.appendingPathComponent("enroll/en_f4/enroll.txt"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ", maxSplits: 1)[1] }
        #expect(listed == sentences)
    }

    /// Enroll from the committed list, then decode with the profile: same output format, and the
    /// profile is the JSON `heed enroll` describes.
    @Test func enrollsAVoiceAndRecognizesWithIt() throws {
        let profile = try Fixtures.temporaryDirectory().appendingPathComponent("en_f4.speaker.json")
        let enrolled = try CLI.run(["enroll", "Audio/enroll/en_f4/enroll.txt", "--output", profile.path])
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(enrolled.stdout.contains(": 20 phrases, "), "\(enrolled.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: profile)) as? [String: Any])
        let shifts = try #require(object["shifts"] as? [Double])
        #expect(object["codebooks"] as? Int == 42 && object["dimensions"] as? Int == 39 && shifts.count == 42 * 39)
        #expect(shifts.contains { $0 != 0 })

        let result = try CLI.run(["recognize", "--speaker", profile.path, "--json", "Audio/demo/start-pause-stop.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        let intents = try result.stdout.split(separator: "\n").map {
            (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["intent"] as? String
        }
        #expect(intents == ["start", "pause", "stop"])
    }

    @Test func aMissingListIsExit66() throws {
        let result = try CLI.run(["enroll", "/nonexistent/enroll.txt", "--output", "/tmp/never.json"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("cannot read the list /nonexistent/enroll.txt"))
    }

    @Test func aLineWithoutWordsIsExit65WithItsLine() throws {
        let url = try list(["# comment", "\(recording("en", 1))"])
        let result = try CLI.run(["enroll", url.path, "--output", url.deletingLastPathComponent().appendingPathComponent("p.json").path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("enroll.txt:2: expected a WAV file and the words said in it"), "\(result.stderr)")
    }

    @Test func wordsTheDictionaryLacksAreNamed() throws {
        let url = try list(["\(recording("en", 1)) The birch canoe slid on the smooth zorblax"])
        let result = try CLI.run(["enroll", url.path, "--output", url.deletingLastPathComponent().appendingPathComponent("p.json").path])
        #expect(result.status == 78)
        #expect(result.stderr.contains("enroll.txt:1: ") && result.stderr.contains("not in the pronunciation dictionary: zorblax"), "\(result.stderr)")
    }

    /// Another sentence's words, or a recording of nothing but noise: refused, nothing written.
    @Test(arguments: [
        ("01.wav", "Glue the sheet to the dark blue background", "does not sound like"),
        ("noise", "The birch canoe slid on the smooth planks", "too noisy to enroll with"),
    ])
    func recordingsThatCannotTeachAreRefused(file: String, words: String, message: String) throws {
        let path = file == "noise" ? Fixtures.audio.appendingPathComponent("noise/pink.wav").path : recording("en_m3", 1)
        let url = try list(["\(path) \(words)"])
        let output = url.deletingLastPathComponent().appendingPathComponent("p.json")
        let result = try CLI.run(["enroll", url.path, "--output", output.path])
        #expect(result.status == 65)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func outputIsRequired() throws {
        let result = try CLI.run(["enroll", "Audio/enroll/en/enroll.txt"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--output FILE.json is required"))
    }

    @Test func aMissingProfileIsExit66AndABadOneExit65() throws {
        let missing = try CLI.run(["recognize", "--speaker", "/nonexistent/me.json", "Audio/demo/stop.wav"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("cannot read the speaker profile /nonexistent/me.json"))
        let bad = try Fixtures.temporaryDirectory().appendingPathComponent("bad.json")
        try Data("{\"shifts\": [1, 2]}".utf8).write(to: bad)
        let invalid = try CLI.run(["recognize", "--speaker", bad.path, "Audio/demo/stop.wav"])
        #expect(invalid.status == 65)
        #expect(invalid.stderr.contains("is not a speaker profile (make one with `heed enroll`)"), "\(invalid.stderr)")
    }

    /// A profile of the right form but the wrong size (another model's) is a configuration error.
    @Test func aProfileForAnotherModelIsExit78() throws {
        let other = try Fixtures.temporaryDirectory().appendingPathComponent("other.json")
        try Data(#"{"codebooks":2,"dimensions":39,"phrases":1,"speechSeconds":1,"shifts":[\#(Array(repeating: "0", count: 78).joined(separator: ","))]}"#.utf8).write(to: other)
        let result = try CLI.run(["recognize", "--speaker", other.path, "Audio/demo/stop.wav"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("the speaker profile was made for another acoustic model"), "\(result.stderr)")
    }
}
