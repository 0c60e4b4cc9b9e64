import Foundation
import HeedTestSupport
import Testing

/// A small golden set, run as a user runs it (`heed test`): every expectation must hold. The
/// long accuracy runs (the real-speech suites in quiet and in noise, beside plain PocketSphinx)
/// are `make accuracy`, not part of the tests.
struct GoldenSuiteTests {
    /// Real people (Tests/Golden): coffee requests with a pause of half a second or more inside,
    /// and one the garbage path wins at first, each one utterance with every slot right; two real
    /// "stop"s and a "start"; "down" and "house", which are no command.
    @Test func realSpeechGoldenSetAllPasses() throws {
        let result = try CLI.run(["test", "Tests/Golden/real-coffee", "Tests/Golden/real-words"])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("accepted 7/7 (100.0 %), false acceptance 0/2 (0.0 %)"), "\(result.stdout)")
    }

    /// Whole exchanges (questions, confirmations, timeouts): every one must come out right.
    @Test func dialogueExchangesAllPass() throws {
        let result = try CLI.run(["test", "Audio/dialogue"])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("accepted 9/9 (100.0 %), false acceptance 0/7 (0.0 %)"))
    }
}
