import Foundation
import HeedTestSupport
import Testing

/// `--learn-speaker` as a user runs it: the profile file it keeps, learning on across runs, and
/// its errors and exit codes. Alone these take seconds; in the whole run they wait behind the
/// suite floors for a thread and once went past 20 minutes, so the limit is the floors' own.
@Suite(.timeLimit(.minutes(60))) struct LearnSpeakerCommandTests {
    func profile(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    func intents(_ stdout: String) -> [String?] {
        stdout.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["intent"] as? String }
    }

    /// The first run makes the file from the commands it understood; the next learns on from it.
    @Test func recognizeKeepsAndExtendsTheProfile() throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("me.speaker.json")
        let first = try CLI.run(["recognize", "--learn-speaker", file.path, "--json", "Audio/demo/start-pause-stop.wav"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(intents(first.stdout) == ["start", "pause", "stop"])
        let learned = try profile(file)
        let phrases = try #require(learned["phrases"] as? Int)
        #expect(phrases >= 1 && phrases <= 3, "learned from \(phrases)")  // only commands heard at 0.9 or more
        #expect((learned["statistics"] as? [Double])?.isEmpty == false)
        #expect((learned["shifts"] as? [Double])?.contains { $0 != 0 } == true)

        let second = try CLI.run(["recognize", "--learn-speaker", file.path, "--json", "Audio/demo/start-pause-stop.wav"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(intents(second.stdout) == ["start", "pause", "stop"])
        #expect(try profile(file)["phrases"] as? Int == 2 * phrases)

        // What it learned is a profile like enrollment's: --speaker takes it.
        let using = try CLI.run(["recognize", "--speaker", file.path, "--json", "Audio/demo/stop.wav"])
        #expect(using.status == 0 && intents(using.stdout) == ["stop"], "\(using.stderr)")
    }

    /// `heed listen` writes the profile as it learns (here from a file paced like a microphone).
    @Test func listenLearnsAsItHears() throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("me.speaker.json")
        let result = try CLI.run(["listen", "--input", "Audio/demo/start-pause-stop.wav", "--learn-speaker", file.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect((try profile(file)["phrases"] as? Int ?? 0) >= 1)
    }

    @Test func errorsAreSaidBeforeAnythingIsHeard() throws {
        let folder = try Fixtures.temporaryDirectory()
        let both = try CLI.run(["recognize", "--speaker", "x.json", "--learn-speaker", "y.json", "Audio/demo/stop.wav"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("give --speaker or --learn-speaker, not both"), "\(both.stderr)")

        let unwritable = try CLI.run(["recognize", "--learn-speaker", "/nonexistent/me.speaker.json", "Audio/demo/stop.wav"])
        #expect(unwritable.status == 73)
        #expect(unwritable.stderr.contains("cannot write the speaker profile /nonexistent/me.speaker.json"), "\(unwritable.stderr)")
        #expect(unwritable.stdout.isEmpty)

        let garbage = folder.appendingPathComponent("garbage.json")
        try Data("not json".utf8).write(to: garbage)
        let notAProfile = try CLI.run(["recognize", "--learn-speaker", garbage.path, "Audio/demo/stop.wav"])
        #expect(notAProfile.status == 65)
        #expect(notAProfile.stderr.contains("is not a speaker profile"), "\(notAProfile.stderr)")
        #expect(try String(contentsOf: garbage, encoding: .utf8) == "not json", "a file that is not a profile is left alone")

        // A profile from before statistics were kept can be used, not learned on.
        let old = folder.appendingPathComponent("old.speaker.json")
        let made = try CLI.run(["recognize", "--learn-speaker", old.path, "Audio/demo/start-pause-stop.wav"])
        #expect(made.status == 0, "\(made.stderr)")
        var object = try profile(old)
        object["statistics"] = nil
        try JSONSerialization.data(withJSONObject: object).write(to: old)
        let stale = try CLI.run(["recognize", "--learn-speaker", old.path, "Audio/demo/stop.wav"])
        #expect(stale.status == 65)
        #expect(stale.stderr.contains("keeps no statistics to learn on"), "\(stale.stderr)")
        #expect(try CLI.run(["recognize", "--speaker", old.path, "Audio/demo/stop.wav"]).status == 0)
    }
}
