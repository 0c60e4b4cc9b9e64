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

    /// A profile of the right form and size but for other Gaussians (another model's) is a configuration error.
    @Test func aProfileForAnotherModelIsExit78() throws {
        let other = try Fixtures.temporaryDirectory().appendingPathComponent("other.json")
        try Data(#"{"model":"0","codebooks":42,"dimensions":39,"phrases":1,"speechSeconds":1,"shifts":[\#(Array(repeating: "0", count: 42 * 39).joined(separator: ","))]}"#.utf8).write(to: other)
        let result = try CLI.run(["recognize", "--speaker", other.path, "Audio/demo/stop.wav"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("the speaker profile was made for another acoustic model"), "\(result.stderr)")
    }
}

/// `heed enroll --record` through the real ALSA code: the ALSA `file` plugin's `infile` plays
/// en_m3 reading the twenty sentences into capture device "heedtest".
@Suite(.timeLimit(.minutes(40))) struct EnrollRecordTests {
    /// The samples of a 16-bit mono WAV (the data chunk's bytes).
    func pcm(_ url: URL) throws -> Data {
        let data = try Data(contentsOf: url)
        let marker = try #require(data.range(of: Data("data".utf8)))
        return data[(marker.upperBound + 4)...]
    }

    @Test func recordsEachSentenceFromTheMicrophoneAndEnrolls() throws {
        let home = try Fixtures.temporaryDirectory()
        var input = Data()
        for number in 1...20 {
            input += try pcm(Fixtures.audio.appendingPathComponent("enroll/en_m3/\(String(format: "%02d", number)).wav"))
        }
        let raw = home.appendingPathComponent("input.raw")
        try input.write(to: raw)
        try """
            pcm.heedtest {
                type file
                slave.pcm "null"
                file "\(home.appendingPathComponent("captured.raw").path)"
                infile "\(raw.path)"
                format "raw"
            }
            """.write(to: home.appendingPathComponent(".asoundrc"), atomically: true, encoding: .utf8)
        let folder = home.appendingPathComponent("me"), profile = home.appendingPathComponent("me.speaker.json")
        // The null slave does not keep time: the device delivers as fast as it is read, then
        // silence for ever. --duration stops capture at the end of the sentences.
        let seconds = String(Double(input.count / 2) / 16_000)
        let result = try CLI.run(["enroll", "--record", folder.path, "--device", "heedtest", "--duration", seconds, "--output", profile.path],
                                 environment: ["HOME": home.path])
        #expect(result.status == 0, "\(result.stderr)\n\(result.stdout)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "1/20  Say: The birch canoe slid on the smooth planks")
        #expect(lines.filter { $0.contains("ok (") }.count == 20, "\(result.stdout)")
        #expect(lines.last?.contains(": 20 phrases, ") == true)
        // The recordings are kept with their list, and enroll again to the same profile.
        let list = try String(contentsOf: folder.appendingPathComponent("enroll.txt"), encoding: .utf8)
        #expect(list.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 20)
        let again = home.appendingPathComponent("again.json")
        let reenrolled = try CLI.run(["enroll", folder.appendingPathComponent("enroll.txt").path, "--output", again.path])
        #expect(reenrolled.status == 0, "\(reenrolled.stderr)")
        #expect(try Data(contentsOf: again) == Data(contentsOf: profile))
    }

    /// A duration that is not a positive number of seconds (nan, inf, or too large to count in
    /// samples) is a usage error, not a crash, for --record as for listen.
    @Test(arguments: ["nan", "inf", "1e300", "0"]) func aDurationMustBeANumberOfSeconds(duration: String) throws {
        for arguments in [["enroll", "--record", "/tmp/never", "--output", "/tmp/never.json"], ["listen"]] {
            let result = try CLI.run(arguments + ["--duration", duration])
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--duration must be between 0 and 10000000 seconds"))
        }
    }

    @Test func listAndRecordTogetherIsAUsageError() throws {
        let result = try CLI.run(["enroll", "Audio/enroll/en/enroll.txt", "--record", "/tmp/x", "--output", "/tmp/y.json"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("give a list of recordings or --record DIR, not both"))
    }
}
