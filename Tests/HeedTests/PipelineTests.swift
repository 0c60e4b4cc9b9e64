import Foundation
import HeedTestSupport
import Testing
@testable import Heed
@testable import HeedRecognition

/// The whole pipeline (WAV, resampling, endpointing, decoding, matching) on recordings.
@Suite(.serialized) struct PipelineTests {
    let recognizer: CommandRecognizer

    init() throws {
        recognizer = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
    }

    func recognize(_ url: URL) throws -> [Utterance] {
        try recognizer.recognize(file: url)
    }

    /// Every demo file, in its own format (8 to 48 kHz, 8 to 32 bit, mono and stereo), gives its intent.
    /// (The demo's synthetic "pause", "done" and "resume", narrowband and over digital silence,
    /// and its "start", most of whose N-best list is garbage words, are not heard at the defaults
    /// chosen on real speech: issue "Real people", BENCHMARKS.md.)
    @Test(arguments: ["stop", "cancel"])
    func demoFileGivesItsIntent(command: String) throws {
        let utterances = try recognize(Fixtures.demo.appendingPathComponent("\(command).wav"))
        #expect(utterances.count == 1)
        #expect(utterances.first?.intent == Intent(name: command))
        #expect(utterances.first?.understood == true)
        #expect(utterances.first?.transcript == command)
        // The fixtures have 0.5 s of silence before the word.
        if let first = utterances.first {
            #expect(abs(first.start - 0.5) < 0.15, "starts at \(first.start)")
            #expect(first.end > first.start + 0.15)
        }
    }

    /// A stream decodes each utterance at its first pause, while the endpointer still waits for
    /// the rest of the trailing silence, and hands out that result at the endpoint: fed 10 ms at a
    /// time, the same utterances as the whole recording at once, with no decoding left to do
    /// when the endpoint comes.
    @Test func liveStreamDecodesBeforeTheEndpointWithTheSameResult() throws {
        let samples = try recognizer.loadAudio(file: Fixtures.demo.appendingPathComponent("start-pause-stop.wav"))
        let atEndpoint = try recognizer.recognize(samples: samples)
        var ahead = recognizer.makeStream()
        var heard: [Utterance] = []
        var decodedBeforeEndpoint = 0
        for start in stride(from: 0, to: samples.count, by: 160) {
            let decodedBefore = recognizer.samplesDecoded
            let found = try ahead.feed(Array(samples[start..<min(samples.count, start + 160)]))
            if !found.isEmpty && recognizer.samplesDecoded == decodedBefore { decodedBeforeEndpoint += found.count }
            heard += found
        }
        heard += try ahead.finish()
        #expect(heard == atEndpoint)
        #expect(heard.map { $0.intent?.name } == ["start", "pause", "stop"])
        #expect(decodedBeforeEndpoint == 3)
    }

    @Test func severalCommandsInOneFileComeOutInOrderWithTimes() throws {
        let utterances = try recognize(Fixtures.demo.appendingPathComponent("start-pause-stop.wav"))
        #expect(utterances.map { $0.intent?.name } == ["start", "pause", "stop"])
        // Each command sits in its own 0.5 s-padded segment of about 1.9 s.
        let starts = utterances.map(\.start)
        #expect(starts.count == 3 && abs(starts[0] - 0.5) < 0.15 && abs(starts[1] - 2.45) < 0.2 && abs(starts[2] - 4.35) < 0.2, "\(starts)")
        #expect(zip(utterances, utterances.dropFirst()).allSatisfy { $0.end < $1.start })
    }

    @Test func speechThatIsNotACommandIsNotUnderstood() throws {
        let utterances = try recognize(Fixtures.demo.appendingPathComponent("what-time-is-it.wav"))
        #expect(!utterances.isEmpty)
        #expect(utterances.allSatisfy { !$0.understood && $0.intent == nil })
    }

    /// The built-in suite: five synthetic voices at two speeds over a quiet room's noise, and 36
    /// negatives (near misses like "the pasta is done" among them), kept as a regression fixture:
    /// no false acceptance may creep in. Measured when the floor was set (rejection tuned on real
    /// speech, which synthetic voices fit worse; PocketSphinx's own noise removal on, which gave real
    /// "stop"s back; a word turned away when most of its N-best list is garbage): 25/60 accepted,
    /// 0/36 false.
    @Test func builtinSuiteMeetsItsFloor() throws {
        var accepted = 0, positives = 0, falseAccepts = 0, negatives = 0
        var failures: [String] = []
        for url in Fixtures.wavs(in: Fixtures.builtins) {
            let expected = String(url.lastPathComponent.split(separator: "-")[0])
            let understood = try recognize(url).filter(\.understood)
            if expected == "none" {
                negatives += 1
                if !understood.isEmpty { falseAccepts += 1; failures.append("\(url.lastPathComponent) -> \(understood.map(\.transcript))") }
            } else {
                positives += 1
                if understood.map({ $0.intent?.name }) == [expected] { accepted += 1 } else { failures.append("\(url.lastPathComponent) -> \(understood.map(\.transcript))") }
            }
        }
        #expect(positives == 60 && negatives == 36)
        #expect(accepted >= 24, "accepted \(accepted)/\(positives): \(failures)")
        #expect(falseAccepts == 0, "false accepts \(falseAccepts)/\(negatives): \(failures)")
    }

    /// Real human speech that contains none of the commands (audiobook sentences, card names,
    /// numbers) must not turn into commands.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func realSpeechIsNotTakenForCommands() throws {
        let files = Fixtures.wavs(in: Fixtures.corpus.appendingPathComponent("librivox"))
            + Fixtures.wavs(in: Fixtures.corpus.appendingPathComponent("cards"))
        #expect(files.count == 10)
        for url in files {
            let understood = try recognize(url).filter(\.understood)
            #expect(understood.isEmpty, "\(url.lastPathComponent): \(understood.map(\.transcript))")
        }
    }

    /// The real human recordings with their own grammar reproduce the reference transcription.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func cardsReproduceTheirTranscription() throws {
        let cards = Fixtures.corpus.appendingPathComponent("cards")
        let recognizer = try CommandRecognizer(vocabulary: .jsgf(cards.appendingPathComponent("cards.gram")), authorization: TestAuthorization.speechRecognition())
        let reference = try String(contentsOf: cards.appendingPathComponent("cards.transcription"), encoding: .utf8)
        var checked = 0
        for line in reference.split(separator: "\n") {
            // "<s> ten of clubs  </s> (001)"
            let id = String(line.split(separator: "(").last!.dropLast())
            let words = line.split(separator: " ").filter { $0 != "<s>" && $0 != "</s>" && !$0.hasPrefix("(") }.joined(separator: " ")
            let utterances = try recognizer.recognize(file: cards.appendingPathComponent("\(id).wav"))
            #expect(utterances.map(\.transcript).joined(separator: " ") == words, "\(id)")
            checked += 1
        }
        #expect(checked == 5)
    }

    /// Feeding a stream in odd-sized chunks gives exactly what feeding it whole gives.
    @Test func chunkingDoesNotChangeResults() throws {
        let samples = try recognizer.loadAudio(file: Fixtures.demo.appendingPathComponent("start-pause-stop.wav"))
        let whole = try recognizer.recognize(samples: samples)
        var stream = recognizer.makeStream()
        var chunked: [Utterance] = []
        var offset = 0, size = 1
        while offset < samples.count {
            let end = min(samples.count, offset + size)
            chunked += try stream.feed(Array(samples[offset..<end]))
            offset = end
            size = size * 3 % 4001 + 1
        }
        chunked += try stream.finish()
        #expect(chunked == whole)
        #expect(whole.count == 3)
    }

    /// Decoding does not depend on what was decoded before.
    @Test func resultsDoNotDependOnOrder() throws {
        let files = Fixtures.wavs(in: Fixtures.demo)
        let forward = try files.map { try recognize($0) }
        let backward = try files.reversed().map { try recognize($0) }.reversed()
        #expect(forward == Array(backward))
    }

    @Test func silenceGivesNoUtterances() throws {
        #expect(try recognizer.recognize(samples: [Int16](repeating: 0, count: 32_000)).isEmpty)
        var noise = SystemRandomNumberGenerator()
        #expect(try recognizer.recognize(samples: (0..<48_000).map { _ in Int16.random(in: -30...30, using: &noise) }).isEmpty)
    }

    @Test func brokenAudioIsADataError() throws {
        let directory = try Fixtures.temporaryDirectory()
        let truncated = directory.appendingPathComponent("truncated.wav")
        let full = try Data(contentsOf: Fixtures.demo.appendingPathComponent("stop.wav"))
        try full.prefix(full.count / 2).write(to: truncated)
        #expect(performing: { try recognize(truncated) }, throws: { ($0 as? HeedError)?.exitCode == 65 })
        #expect(performing: { try recognize(directory.appendingPathComponent("missing.wav")) }, throws: { ($0 as? HeedError)?.exitCode == 66 })
        #expect(performing: { try recognize(directory) }, throws: { ($0 as? HeedError)?.exitCode == 66 })
    }
}
