import Foundation
import HeedTestSupport
import Testing
@testable import Heed

/// The account of how each utterance was decided (`CommandRecognizer.onExplanation`, `heed
/// recognize --explain`), on real recordings through the real decoder.
@Suite(.serialized) struct ExplanationTests {
    /// The utterances `samples` give, and the lines that explained them; the same recognizer
    /// decodes them again with no one listening, and must give the same utterances.
    static func explained(_ samples: [Int16], by recognizer: CommandRecognizer) throws -> (utterances: [Utterance], lines: [String]) {
        var lines: [String] = []
        recognizer.onExplanation = { lines.append($0) }
        let utterances = try recognizer.recognize(samples: samples)
        recognizer.onExplanation = nil
        #expect(try recognizer.recognize(samples: samples) == utterances, "explaining changed what was decoded")
        return (utterances, lines)
    }

    @Test func aCleanCommandIsExplainedByItsRouteAndWhatItsDecodeHeard() throws {
        let recognizer = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
        let samples = try recognizer.loadAudio(file: Fixtures.demo.appendingPathComponent("stop.wav"))
        let (utterances, lines) = try Self.explained(samples, by: recognizer)
        #expect(utterances.map(\.transcript) == ["stop"])
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first?.hasPrefix("utterance at 0.") == true && lines.first?.hasSuffix(" s: quiet") == true, "\(lines)")
        #expect(lines.dropFirst().first == "commands search: \"stop\"", "\(lines)")
        #expect(lines.last?.hasPrefix("detector: \"stop\": N-best share ") == true && lines.last?.hasSuffix(": accepted") == true, "\(lines)")
    }

    /// A real "down" is no built-in, but decoded against the built-ins alone it is "done": the
    /// detector turns it away, and the account says what it weighed. A real "stop" is accepted.
    @Test func aWordThatIsNoCommandIsTurnedAwayByTheDetector() throws {
        let recognizer = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
        let words = Fixtures.root.appendingPathComponent("Tests/Golden/real-words")
        let down = try Self.explained(recognizer.loadAudio(file: words.appendingPathComponent("down-5fe4a278_nohash_0.wav")), by: recognizer)
        #expect(down.utterances.count == 1 && down.utterances.allSatisfy { !$0.understood }, "\(down.utterances)")
        #expect(down.lines.contains { $0.hasPrefix("detector: ") && $0.hasSuffix(": turned away") }, "\(down.lines)")
        let stop = try Self.explained(recognizer.loadAudio(file: words.appendingPathComponent("stop-1eddce1d_nohash_3.wav")), by: recognizer)
        #expect(stop.utterances.map(\.intent?.name) == ["stop"], "\(stop.lines)")
        #expect(stop.lines.contains { $0.hasPrefix("detector: \"stop\"") && $0.hasSuffix(": accepted") }, "\(stop.lines)")
    }

    /// "What time is it" is no command: the garbage loop's words win, shown in brackets, beside
    /// the one command word the path passed through.
    @Test func speechThatIsNoCommandShowsTheGarbageWordsThatWon() throws {
        let recognizer = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
        let samples = try recognizer.loadAudio(file: Fixtures.demo.appendingPathComponent("what-time-is-it.wav"))
        let (utterances, lines) = try Self.explained(samples, by: recognizer)
        #expect(utterances.count == 1 && utterances.allSatisfy { !$0.understood })
        let heard = try #require(lines.first { $0.hasPrefix("commands search: ") }, "\(lines)")
        #expect(heard.contains("[what]"), "\(heard)")
    }

    /// In pink noise at 12 dB, mixed as `heed test` mixes it, an utterance is judged noisy with
    /// steady noise: it is decoded denoised with the model adapted to the noise, as the account says.
    @Test func aNoisyUtteranceSaysHowItWasJudgedAndDecoded() throws {
        let recognizer = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
        let mixed = try SuiteMix.mixed(Fixtures.builtins.appendingPathComponent("cancel-en-us-130.wav"), as: "builtins/cancel-en-us-130.wav",
                                       with: "pink", snr: 12)
        let (utterances, lines) = try Self.explained(mixed, by: recognizer)
        #expect(utterances.filter(\.understood).map(\.transcript) == ["cancel"], "\(lines)")
        #expect(lines.contains { $0.hasSuffix("noisy, the noise steady") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("commands search, model adapted to the noise: ") }, "\(lines)")
    }
}
