import Foundation
import HeedTestSupport
import Testing
@testable import Heed
import HeedAudio

/// Scoring of suite runs, on hand-made results (decoding itself is covered by the CLI tests).
@Suite struct SuiteReportTests {
    func suite(_ manifest: String, files: [String]) throws -> TestSuite {
        let directory = try Fixtures.temporaryDirectory()
        for file in files { try Data().write(to: directory.appendingPathComponent(file)) }
        try manifest.write(to: directory.appendingPathComponent("suite.yml"), atomically: true, encoding: .utf8)
        return try TestSuite(directory: directory)
    }

    func heard(_ intents: [String?], transcript: String = "") -> [Utterance] {
        intents.map { name in
            Utterance(start: 0, end: 1, transcript: name ?? transcript, intent: name.map { Intent(name: $0) }, understood: name != nil || !transcript.isEmpty, confidence: 1)
        }
    }

    @Test func ratesAndConfusionCountEachKindOfMistake() throws {
        let suite = try suite("""
            files:
              a.wav: {intent: stop}
              b.wav: {intent: stop}
              c.wav: {intent: start}
              d.wav: [{intent: start}, {intent: stop}]
              e.wav: {understood: false}
              f.wav: {understood: false}
            """, files: ["a.wav", "b.wav", "c.wav", "d.wav", "e.wav", "f.wav"])
        let got: [[Utterance]] = [heard(["stop"]), heard(["start"]), heard([]), heard(["start"]), heard([]), heard(["pause"])]
        let results = got.enumerated().map { CaseResult(suite: 0, entry: $0.offset, condition: 0, utterances: $0.element, error: nil, cpuSeconds: 0.1, audioSeconds: 1) }
        let report = SuiteReport(suites: [suite], conditions: [.clean], results: results)
        let scores = report.scores(condition: 0)
        #expect(scores.positives == 4 && scores.accepted == 1)
        #expect(scores.falseRejections == 1)  // c.wav: nothing understood at all
        #expect(scores.wrongResults == 2)  // b.wav: the other command; d.wav: one of two commands missing
        #expect(scores.negatives == 2 && scores.falseAcceptances == 1)
        #expect(!scores.allHeld)
        #expect(report.verdict(of: results[3]) == .failed("expected start, stop, got start"))
        let confusion = report.confusion(condition: 0)
        #expect(confusion["stop"] == ["stop": 1, "start": 1, SuiteReport.nothing: 1])  // a, b, and d's missing second utterance
        #expect(confusion["start"] == ["start": 1, SuiteReport.nothing: 1])
        #expect(confusion[SuiteReport.nothing] == [SuiteReport.nothing: 1, "pause": 1])
    }

    @Test func wordErrorRateCountsSubstitutionsInsertionsAndDeletions() throws {
        let suite = try suite("""
            grammar: g.gram
            files:
              a.wav: {transcript: "ten of clubs"}
              b.wav: {transcript: "five five"}
            """, files: ["a.wav", "b.wav", "g.gram"])
        let results = [
            CaseResult(suite: 0, entry: 0, condition: 0, utterances: heard([nil], transcript: "ten of hearts"), error: nil, cpuSeconds: 0, audioSeconds: 1),
            CaseResult(suite: 0, entry: 1, condition: 0, utterances: heard([nil], transcript: "Five, five"), error: nil, cpuSeconds: 0, audioSeconds: 1),
        ]
        let report = SuiteReport(suites: [suite], conditions: [.clean], results: results)
        let scores = report.scores(condition: 0)
        #expect(scores.referenceWords == 5 && scores.wordErrors == 1)
        #expect(scores.accepted == 1)
        #expect(report.verdict(of: results[1]) == .passed)  // case and punctuation do not count
    }

    @Test func brokenEntriesAreErrorsNotFailures() throws {
        var suite = try suite("""
            files:
              a.wav: {intent: frobnicate}
              gone.wav: {intent: stop}
              c.wav: {slots: {size: large}}
            """, files: ["a.wav", "c.wav"])
        _ = try suite.loadVocabulary()
        #expect(suite.entries.map(\.problem) == ["unknown intent 'frobnicate'", "needs `intent:`, `transcript:` or `understood: false`", "no such file"])
    }

    @Test func aDialogueMustAskTheListedQuestions() throws {
        let suite = try suite("""
            files:
              a.wav: {intent: stop, prompts: [size, confirm]}
              b.wav: {intent: stop, prompts: [size, confirm]}
              c.wav: {understood: false, prompts: [confirm]}
              d.wav: {intent: stop}
            """, files: ["a.wav", "b.wav", "c.wav", "d.wav"])
        #expect(suite.entries.map(\.prompts) == [["size", "confirm"], ["size", "confirm"], ["confirm"], nil])
        let results = [
            CaseResult(suite: 0, entry: 0, condition: 0, utterances: heard(["stop"]), error: nil, cpuSeconds: 0, audioSeconds: 1, prompts: ["size", "confirm"]),
            CaseResult(suite: 0, entry: 1, condition: 0, utterances: heard(["stop"]), error: nil, cpuSeconds: 0, audioSeconds: 1, prompts: ["confirm"]),
            CaseResult(suite: 0, entry: 2, condition: 0, utterances: heard([]), error: nil, cpuSeconds: 0, audioSeconds: 1, prompts: ["confirm"]),
            CaseResult(suite: 0, entry: 3, condition: 0, utterances: heard(["stop"]), error: nil, cpuSeconds: 0, audioSeconds: 1, prompts: ["size"]),
        ]
        let report = SuiteReport(suites: [suite], conditions: [.clean], results: results)
        #expect(report.verdict(of: results[0]) == .passed)
        #expect(report.verdict(of: results[1]) == .failed("expected the questions [size, confirm], asked [confirm]"))
        #expect(report.verdict(of: results[2]) == .passed)
        #expect(report.verdict(of: results[3]) == .passed)  // questions not listed are not checked
        // A negative that asked the wrong questions fails, but it took nothing for a command.
        let wrongQuestion = CaseResult(suite: 0, entry: 2, condition: 0, utterances: heard([]), error: nil, cpuSeconds: 0, audioSeconds: 1, prompts: [])
        let scores = SuiteReport(suites: [suite], conditions: [.clean], results: [wrongQuestion]).scores(condition: 0)
        #expect(scores.falseAcceptances == 0 && scores.otherFailures == 1 && !scores.allHeld)
    }

    /// A dialogue's events become one utterance per exchange: the completed intent, or nothing.
    @Test func exchangesAreScoredByTheirOutcome() {
        let tea = Intent(name: "orderDrink", slots: ["drink": "tea", "size": "large"])
        let turn = { (text: String, start: Double) in
            UtteranceStream.Event.utterance(Utterance(start: start, end: start + 1, transcript: text, intent: nil, understood: true, confidence: 0.9))
        }
        let outcome = SuiteRunner.outcome(of: [
            turn("order a tea", 0), .dialogue(.prompt(.init(intent: tea, slot: "size", question: "What size?")), time: 1),
            turn("large", 2), .dialogue(.prompt(.init(intent: tea, slot: nil, question: "Sure?")), time: 3),
            turn("yes", 4), .dialogue(.completed(tea), time: 5),
            turn("order a tea", 6), .dialogue(.prompt(.init(intent: tea, slot: nil, question: "Sure?")), time: 7),
            turn("no", 8), .dialogue(.aborted(tea, .declined), time: 9),
        ])
        #expect(outcome.prompts == ["size", "confirm", "confirm"])
        #expect(outcome.utterances.map(\.intent) == [tea, nil])
        #expect(outcome.utterances[0].start == 0 && outcome.utterances[0].end == 5)
        #expect(outcome.utterances[0].transcript == "order a tea / large / yes")
    }

    @Test func conditionsAreNamedForPeople() {
        #expect(SuiteCondition.noise("babble", snr: 6).description == "babble @ 6 dB")
        #expect(SuiteCondition.speed(0.9).description == "speed x0.9")
        #expect(SuiteCondition.gain(-12).description == "gain -12 dB")
        #expect(SuiteCondition.reverb(0.6).description == "reverb 0.6 s")
        #expect(SuiteCondition.noise("pink", snr: 12, room: 0.3).description == "pink @ 12 dB, reverb 0.3 s")
    }

    /// A noise in a room is the reverb condition's room with the noise condition's noise over
    /// it: the three runs compare file for file (the kept recordings add up to a sample).
    @Test func aNoiseInARoomIsThatRoomWithThatNoise() throws {
        let folder = try Fixtures.temporaryDirectory()
        let name = "stop-en-130.wav"
        try FileManager.default.copyItem(at: Fixtures.audio.appendingPathComponent("builtins/\(name)"), to: folder.appendingPathComponent(name))
        try "files:\n  \(name): {intent: stop}\n".write(to: folder.appendingPathComponent("suite.yml"), atomically: true, encoding: .utf8)
        let noise = try SuiteRunner.loadNoise(Fixtures.audio.appendingPathComponent("noise/pink.wav"))
        var runner = SuiteRunner(suites: [try TestSuite(directory: folder)],
                                 conditions: [.noise("pink", snr: 12), .reverb(0.3), .noise("pink", snr: 12, room: 0.3)],
                                 noises: ["pink": noise], jobs: 1)
        let kept = try Fixtures.temporaryDirectory()
        runner.keepAudio = kept
        _ = try runner.run(authorization: try TestAuthorization.speechRecognition())
        func samples(_ path: String) throws -> [Int16] {
            PCM.int16(from: try WAVFile(contentsOf: path.hasPrefix("/") ? URL(fileURLWithPath: path) : kept.appendingPathComponent(path)).samples)
        }
        let dry = try samples(folder.appendingPathComponent(name).path), suite = folder.lastPathComponent
        let noisy = try samples("pink@12dB/\(suite)/\(name)"), room = try samples("reverb0.3s/\(suite)/\(name)")
        let both = try samples("pink@12dB,reverb0.3s/\(suite)/\(name)")
        #expect(both.count == room.count && room.count == dry.count + Int(0.3 * 16_000) - 1)
        let largest = dry.indices.map { abs(Int(both[$0]) - (Int(room[$0]) + Int(noisy[$0]) - Int(dry[$0]))) }.max() ?? .max
        #expect(largest <= 2, "differs by \(largest)")
        #expect(noisy != dry && room != dry)
    }
}
