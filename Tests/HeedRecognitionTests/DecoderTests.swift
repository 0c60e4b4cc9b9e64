import Foundation
import HeedAudio
import HeedTestSupport
import Testing
@testable import HeedRecognition

/// The real PocketSphinx decoder on real human recordings.
@Suite(.serialized) struct DecoderTests {
    func samples(_ url: URL) throws -> [Int16] {
        if url.pathExtension == "raw" {
            return PCM.int16(littleEndianBytes: [UInt8](try Data(contentsOf: url)))
        }
        return PCM.int16(from: try WAVFile(contentsOf: url).samples)
    }

    func decode(_ decoder: Decoder, _ samples: [Int16]) throws -> Hypothesis {
        try decoder.startUtterance()
        try decoder.process(samples, wholeUtterance: true)
        return try decoder.endUtterance()
    }

    @Test func modelRateIsReadFromTheDecoder() throws {
        let decoder = try Decoder()
        #expect(decoder.sampleRate == 16_000)
        #expect(decoder.frameRate == 100)
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func goForwardWithItsGrammar() throws {
        let decoder = try Decoder()
        try decoder.addJSGF(file: Fixtures.corpus.appendingPathComponent("goforward.gram"), named: "goforward")
        try decoder.select("goforward")
        let hypothesis = try decode(decoder, samples(Fixtures.corpus.appendingPathComponent("goforward.raw")))
        #expect(hypothesis.text == "go forward ten meters")
        #expect(hypothesis.spokenWords.first!.startFrame > 10)
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func builtGrammarEqualsJSGF() throws {
        // The same language as goforward.gram's first rule, built as a word graph.
        var grammar = Grammar()
        grammar.addPhrase(["go", "forward", "ten", "meters"])
        grammar.addPhrase(["go", "backward", "ten", "meters"])
        let decoder = try Decoder()
        try decoder.add(grammar, named: "built")
        try decoder.select("built")
        let hypothesis = try decode(decoder, samples(Fixtures.corpus.appendingPathComponent("goforward.raw")))
        #expect(hypothesis.text == "go forward ten meters")
    }

    @Test func grammarWithUnknownWordsNamesThem() throws {
        var grammar = Grammar()
        grammar.addPhrase(["stop", "blorptastic", "zzyzxq"])
        let decoder = try Decoder()
        #expect(performing: { try decoder.add(grammar, named: "bad") }, throws: { error in
            (error as? RecognitionError)?.message == "not in the pronunciation dictionary: blorptastic, zzyzxq"
        })
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func brokenGrammarsAreRefused() throws {
        let decoder = try Decoder()
        for name in ["invalid.gram", "defective.gram", "fuzzed.gram"] {
            #expect(throws: RecognitionError.self, "\(name)") {
                try decoder.addJSGF(file: Fixtures.corpus.appendingPathComponent(name), named: name)
            }
        }
    }

    @Test func missingModelIsAClearError() {
        var configuration = DecoderConfiguration()
        configuration.acousticModel = URL(fileURLWithPath: "/nonexistent/en-us")
        #expect(performing: { try Decoder(configuration: configuration) }, throws: { error in
            (error as? RecognitionError)?.message.contains("acoustic model not found at /nonexistent/en-us") == true
        })
    }

    @Test func addedWordsArePronounceable() throws {
        let decoder = try Decoder()
        #expect(decoder.pronunciation(of: "heedword") == nil)
        #expect(decoder.addWord("heedword", phones: "HH IY D W ER D"))
        #expect(decoder.pronunciation(of: "heedword") == "HH IY D W ER D")
        #expect(!decoder.addWord("badphones", phones: "QQ XX"))
    }
}
