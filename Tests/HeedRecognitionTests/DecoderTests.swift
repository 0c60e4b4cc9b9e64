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

    /// When no path reaches the grammar's final state (PocketSphinx: "Final result does not match
    /// the grammar"), the hypothesis says so and keeps the best path the search still had, so the
    /// caller can see what was heard instead of nothing at all.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func aSearchThatEndsInsideAPhraseKeepsItsBestPath() throws {
        var grammar = Grammar()
        grammar.addPhrase(["go", "forward", "ten", "meters"])
        let decoder = try Decoder()
        try decoder.add(grammar, named: "built")
        try decoder.select("built")
        let whole = try samples(Fixtures.corpus.appendingPathComponent("goforward.raw"))
        let complete = try decode(decoder, whole)
        #expect(complete.reachedFinalState && complete.text == "go forward ten meters")
        // The recording cut after "go forward" (1.17 s of 2.6 s): the sentence cannot end there.
        let cut = try decode(decoder, Array(whole.prefix(18_720)))
        #expect(!cut.reachedFinalState)
        #expect(Array(cut.spokenWords.map(\.word).prefix(2)) == ["go", "forward"], "\(cut.text)")
        #expect(cut.alternatives.isEmpty)
    }

    /// The cap on active HMMs reaches the setting PocketSphinx reads every frame, and nil puts
    /// back the configured one (-maxhmmpf from the arguments, here 5000), as does 0.
    @Test func activeHMMCapIsTheSettingTheSearchReads() throws {
        var configuration = DecoderConfiguration()
        configuration.arguments["-maxhmmpf"] = "5000"
        let decoder = try Decoder(configuration: configuration)
        #expect(decoder.effectiveMaxActiveHMMs == 5000)
        decoder.maxActiveHMMs = 300
        #expect(decoder.effectiveMaxActiveHMMs == 300)
        decoder.maxActiveHMMs = nil
        #expect(decoder.effectiveMaxActiveHMMs == 5000)
        decoder.maxActiveHMMs = 0
        #expect(decoder.effectiveMaxActiveHMMs == 5000, "a cap of 0 would narrow the beams at every frame")
    }

    /// Real speech through a grammar with a garbage loop, which keeps hundreds of HMMs active:
    /// capped at 300 (below the recognizer's default for clean speech, 500), the words are still found.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func cappedSearchStillFindsTheWords() throws {
        var grammar = Grammar()
        grammar.addPhrase(["go", "forward", "ten", "meters"])
        grammar.addPhrase(["go", "backward", "ten", "meters"])
        grammar.addGarbageLoop(units: ["the", "a", "to", "and", "of", "in", "for", "on", "at", "go", "back", "four", "word", "tent", "metal",
                                       "ford", "forth", "then", "meet", "her", "hers", "men", "ward", "went"], penalty: 1e-6)
        let decoder = try Decoder()
        try decoder.add(grammar, named: "garbage")
        try decoder.select("garbage")
        let audio = try samples(Fixtures.corpus.appendingPathComponent("goforward.raw"))
        let uncapped = try decode(decoder, audio)
        decoder.maxActiveHMMs = 300
        let capped = try decode(decoder, audio)
        #expect(uncapped.text == "go forward ten meters")
        #expect(capped.text == "go forward ten meters")
    }

    /// The N-best list (and the word lattice it needs) is made only when the caller wants one
    /// for the hypothesis, which it is shown first.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func alternativesAreMadeOnlyWhenWanted() throws {
        let decoder = try Decoder()
        try decoder.addJSGF(file: Fixtures.corpus.appendingPathComponent("goforward.gram"), named: "goforward")
        try decoder.select("goforward")
        let audio = try samples(Fixtures.corpus.appendingPathComponent("goforward.raw"))
        var shown: [[String]] = []
        for wanted in [true, false] {
            try decoder.startUtterance()
            try decoder.process(audio, wholeUtterance: true)
            let hypothesis = try decoder.endUtterance { shown.append($0.spokenWords.map(\.word)); return wanted }
            #expect(hypothesis.text == "go forward ten meters")
            #expect(wanted ? hypothesis.alternatives.count >= 2 : hypothesis.alternatives.isEmpty)
        }
        #expect(shown == [["go", "forward", "ten", "meters"], ["go", "forward", "ten", "meters"]])
    }

    /// Heed's interleaved Gaussian evaluation (Sources/CPTMScorer) must score every frame exactly
    /// as PocketSphinx's own. Real speech through a loop of its own words keeps most codebooks
    /// active and many Gaussians near the top-N threshold; both decoders must hear the same
    /// words at the same frames, with the same acoustic scores, path score and N-best list.
    /// (Recordings of real people committed in Tests/Golden, so the check always runs.)
    @Test func interleavedGaussiansScoreExactlyAsPocketSphinx() throws {
        var stockConfiguration = DecoderConfiguration()
        stockConfiguration.interleavedGaussians = false
        let interleaved = try Decoder(), stock = try Decoder(configuration: stockConfiguration)
        #expect(interleaved.usesInterleavedGaussians)
        #expect(!stock.usesInterleavedGaussians)
        #expect(interleaved.scorerWarning == nil && stock.scorerWarning == nil)  // installed, and not asked for

        let words = ["make", "me", "a", "double", "shot", "drip", "coffee", "with", "bit", "of", "sweetener", "can", "i",
                     "have", "sixteen", "ounce", "mocha", "skim", "milk", "and", "get", "light", "roast", "twelve", "the", "brew",
                     "stop", "house", "down", "go", "forward", "ten", "meters"]
        var grammar = Grammar()
        grammar.addGarbageLoop(units: words, penalty: 1e-3)
        for decoder in [interleaved, stock] {
            try decoder.add(grammar, named: "loop")
            try decoder.select("loop")
        }
        let golden = Fixtures.root.appendingPathComponent("Tests/Golden")
        let files = ["real-coffee/0334e17c-b72f-4e1a-ba76-0bb6c110ef94.wav", "real-coffee/2630f6ea-dcdb-44d0-a045-b564d346f3d0.wav",
                     "real-words/stop-1eddce1d_nohash_3.wav"].map { golden.appendingPathComponent($0) }
        for file in files {
            let audio = try samples(file)
            let fast = try decode(interleaved, audio), reference = try decode(stock, audio)
            // Only Heed's scorer reports what it took off each frame (`frameScoreOffsets`); the rest must be equal.
            #expect(!fast.frameScoreOffsets.isEmpty && reference.frameScoreOffsets.isEmpty)
            var fastWithoutOffsets = fast
            fastWithoutOffsets.frameScoreOffsets = []
            // (Bool(...): the two hypotheses printed in full would be pages long.)
            #expect(Bool(fastWithoutOffsets == reference), "\(file.lastPathComponent): path scores \(fast.score) and \(reference.score), '\(fast.text)' and '\(reference.text)'")
            // Real words were heard and weighed, so the comparison is not one of empty paths.
            let request = file.path.contains("real-coffee")
            #expect(fast.spokenWords.count >= (request ? 4 : 1) && fast.alternatives.count >= 2, "\(file.lastPathComponent): \(fast.text)")
        }
    }

    /// What the scorer keeps of an utterance (the frames' score offsets) belongs to its decoder:
    /// two decoders with utterances open at once on one thread, fed in turns, each report what
    /// they report alone. (Kept per thread, the second's start would wipe the first's.)
    @Test func twoDecodersInTurnsKeepTheirOwnScoreOffsets() throws {
        let golden = Fixtures.root.appendingPathComponent("Tests/Golden")
        let first = try samples(golden.appendingPathComponent("real-coffee/0334e17c-b72f-4e1a-ba76-0bb6c110ef94.wav"))
        let second = try samples(golden.appendingPathComponent("real-words/stop-1eddce1d_nohash_3.wav"))
        var grammar = Grammar()
        grammar.addGarbageLoop(units: ["make", "me", "a", "coffee", "stop", "start"], penalty: 1e-3)
        // Four fresh decoders: a decoder's running cepstral mean carries over from one utterance to the next.
        let one = try Decoder(), two = try Decoder(), firstOnItsOwn = try Decoder(), secondOnItsOwn = try Decoder()
        for decoder in [one, two, firstOnItsOwn, secondOnItsOwn] {
            try decoder.add(grammar, named: "loop")
            try decoder.select("loop")
        }
        let chunk = 1_600
        func pieces(_ audio: [Int16]) -> [[Int16]] {
            stride(from: 0, to: audio.count, by: chunk).map { Array(audio[$0..<min($0 + chunk, audio.count)]) }
        }
        func alone(_ decoder: Decoder, _ audio: [Int16]) throws -> Hypothesis {
            try decoder.startUtterance()
            for piece in pieces(audio) { try decoder.process(piece) }
            return try decoder.endUtterance()
        }
        let firstAlone = try alone(firstOnItsOwn, first), secondAlone = try alone(secondOnItsOwn, second)

        try one.startUtterance()
        try two.startUtterance()
        let (firstPieces, secondPieces) = (pieces(first), pieces(second))
        for index in 0..<max(firstPieces.count, secondPieces.count) {
            if index < firstPieces.count { try one.process(firstPieces[index]) }
            if index < secondPieces.count { try two.process(secondPieces[index]) }
        }
        let secondInTurns = try two.endUtterance(), firstInTurns = try one.endUtterance()
        for (inTurns, alone) in [(firstInTurns, firstAlone), (secondInTurns, secondAlone)] {
            #expect(alone.frameScoreOffsets.count >= alone.frameCount - 1 && !alone.spokenWords.isEmpty, "\(alone.text)")
            #expect(inTurns.frameScoreOffsets == alone.frameScoreOffsets)
            #expect(Bool(inTurns == alone), "'\(inTurns.text)' in turns, '\(alone.text)' alone")
        }
    }

    /// Verification decodes the same samples twice; the second decode starts from the first's
    /// codebook search (`Decoder.CodebookSearch`). Whether it does or searches on its own, it
    /// must hear exactly the same: a few command words first (few codebooks searched), then a
    /// loop of every phone (the rest searched on the spot), on a real request and a real "stop".
    @Test func aSecondDecodeOfTheSameSamplesScoresAsOnItsOwn() throws {
        let golden = Fixtures.root.appendingPathComponent("Tests/Golden")
        var commands = Grammar()
        commands.addGarbageLoop(units: ["stop", "start", "coffee"], penalty: 1e-3)
        let reusing = try Decoder(), searching = try Decoder()
        var phones = Grammar()
        for decoder in [reusing, searching] {
            #expect(decoder.addPhoneWords(prefix: "~").count == Decoder.speechPhones.count)
        }
        phones.addGarbageLoop(units: Decoder.speechPhones.map { "~" + $0.lowercased() }, penalty: 1)
        for decoder in [reusing, searching] {
            try decoder.add(commands, named: "commands")
            try decoder.add(phones, named: "phones")
        }
        for file in ["real-coffee/0334e17c-b72f-4e1a-ba76-0bb6c110ef94.wav", "real-words/stop-1eddce1d_nohash_3.wav"] {
            let audio = try samples(golden.appendingPathComponent(file))
            func twice(_ decoder: Decoder, second: Decoder.CodebookSearch) throws -> (Hypothesis, Hypothesis) {
                try decoder.select("commands")
                try decoder.startUtterance(codebooks: .keptForNext)
                try decoder.process(audio, wholeUtterance: true)
                let first = try decoder.endUtterance()
                try decoder.select("phones")
                try decoder.startUtterance(codebooks: second)
                try decoder.process(audio, wholeUtterance: true)
                return (first, try decoder.endUtterance(alternatives: { _ in false }))
            }
            let (firstReusing, reused) = try twice(reusing, second: .reusedFromLast)
            let (firstSearching, searched) = try twice(searching, second: .own)
            #expect(Bool(firstReusing == firstSearching))
            #expect(reused.spokenWords.count >= 3 && reused.frameScoreOffsets.count >= reused.frameCount - 1, "\(file): \(reused.text)")
            #expect(reused.frameScoreOffsets == searched.frameScoreOffsets)
            #expect(Bool(reused == searched), "\(file): '\(reused.text)' reusing, '\(searched.text)' searching")
        }
    }

    // MARK: Noise adaptation (Sources/CPTMScorer/noise_adaptation.c)

    func noise(_ name: String) throws -> [Float] {
        try WAVFile(contentsOf: Fixtures.audio.appendingPathComponent("noise/\(name).wav")).samples
    }

    /// goforward.raw, a real human recording, with pink noise 6 dB below it.
    func goForwardInPinkNoise() throws -> [Int16] {
        let speech = PCM.float(from: try samples(Fixtures.corpus.appendingPathComponent("goforward.raw")))
        return PCM.int16(from: Perturbation.mix(speech: speech, noise: try noise("pink"), snr: 6, sampleRate: 16_000, seed: 1))
    }

    func goForwardDecoder() throws -> Decoder {
        let decoder = try Decoder()
        try decoder.addJSGF(file: Fixtures.corpus.appendingPathComponent("goforward.gram"), named: "goforward")
        try decoder.select("goforward")
        return decoder
    }

    /// Adapting rewrites the model's Gaussians for one utterance's noise; restoring gives back the
    /// trained model exactly, so a clean utterance after a noisy one decodes as if none came before.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func noiseAdaptationIsUndoneExactly() throws {
        let decoder = try goForwardDecoder()
        let clean = try samples(Fixtures.corpus.appendingPathComponent("goforward.raw"))
        let trained = try decode(decoder, clean)
        #expect(trained.text == "go forward ten meters")
        var meansOnly = NoiseAdaptation()
        meansOnly.uncertainty = 0
        #expect(decoder.adaptAcousticModel(toNoiseIn: try goForwardInPinkNoise()[...], meansOnly))
        let meansAdapted = try decode(decoder, clean)
        #expect(meansAdapted.score != trained.score, "adapting changed nothing")
        // By default the variances widen too, and the restore undoes that as well.
        #expect(decoder.adaptAcousticModel(toNoiseIn: try goForwardInPinkNoise()[...], NoiseAdaptation()))
        #expect(decoder.isAdaptedToNoise)
        #expect(try decode(decoder, clean).score != meansAdapted.score, "the uncertainty widened nothing")
        decoder.restoreAcousticModel()
        #expect(!decoder.isAdaptedToNoise)
        #expect(Bool(try decode(decoder, clean) == trained))
    }

    /// Through pink noise at 6 dB (no suppressor here) the trained model loses the recording's
    /// last words; with its means adapted to the noise, it hears them all. (The widened variances
    /// are for the denoised audio the pipeline decodes: on this raw mix they lose "meters" again,
    /// while `heed test` with the suppressor hears the recording whole in pink noise down to 6 dB
    /// either way; BENCHMARKS.md in git history, "Wider Gaussians in noise".)
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func theAdaptedModelHearsWhatTheTrainedOneLosesInNoise() throws {
        let decoder = try goForwardDecoder()
        let noisy = try goForwardInPinkNoise()
        let trained = try decode(decoder, noisy)
        var meansOnly = NoiseAdaptation()
        meansOnly.uncertainty = 0
        #expect(decoder.adaptAcousticModel(toNoiseIn: noisy[...], meansOnly))
        let adapted = try decode(decoder, noisy)
        #expect(adapted.text == "go forward ten meters")
        #expect(trained.text != "go forward ten meters", "the trained model needs no help here: pick a harder mix")
    }

    /// Speech far above its noise is left to the trained model (adapting it lost commands).
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func cleanSpeechIsNotAdaptedTo() throws {
        let decoder = try goForwardDecoder()
        let clean = try samples(Fixtures.corpus.appendingPathComponent("goforward.raw"))
        let trained = decoder.parameters()
        #expect(decoder.adaptAcousticModel(toNoiseIn: try goForwardInPinkNoise()[...], NoiseAdaptation()), "the mix is past the range: pick a louder noise")
        #expect(!decoder.adaptAcousticModel(toNoiseIn: clean[...], NoiseAdaptation()))
        #expect(!decoder.isAdaptedToNoise)
        #expect(decoder.parameters() == trained, "a model left as trained must be the trained one, not the last adaptation")
        #expect(!decoder.adaptAcousticModel(toNoiseIn: clean[0..<500], NoiseAdaptation()), "too short to say")
        #expect(decoder.parameters() == trained)
    }

    /// Past the speech range where adaptation stops (`maxSpeechRangeDB`), it fades out over
    /// `rangeFadeDB`. goforward.raw in pink noise at 27 dB (no suppressor here; PocketSphinx's own
    /// noise removal takes some off) is just past the range: the hard gate leaves the model as trained, the fade adapts it, and by less than a
    /// gate that let the mix through in full would.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func adaptationFadesOutPastTheSpeechRange() throws {
        let decoder = try goForwardDecoder()
        let clean = try samples(Fixtures.corpus.appendingPathComponent("goforward.raw"))
        let noisy = PCM.int16(from: Perturbation.mix(speech: PCM.float(from: clean), noise: try noise("pink"), snr: 27,
                                                     sampleRate: 16_000, seed: 1))
        // How far each model moved from the trained one.
        let trained = decoder.parameters()
        func moved() -> Double { zip(trained, decoder.parameters()).reduce(0) { $0 + Double(abs($1.0 - $1.1)) } }
        var hardGate = NoiseAdaptation()
        hardGate.rangeFadeDB = 0
        #expect(!decoder.adaptAcousticModel(toNoiseIn: noisy[...], hardGate), "the mix is within the range: pick a quieter noise")
        #expect(decoder.adaptAcousticModel(toNoiseIn: noisy[...], NoiseAdaptation()))
        let faded = moved()
        var noGate = NoiseAdaptation()
        noGate.maxSpeechRangeDB = 40
        #expect(decoder.adaptAcousticModel(toNoiseIn: noisy[...], noGate))
        let full = moved()
        #expect(faded > 0 && faded < full, "faded \(faded), in full \(full)")
        decoder.restoreAcousticModel()
    }

    /// The gate that keeps adaptation away from background talk: steady noises vary less from
    /// frame to frame than NoiseAdaptation's limit, six voices talking at once more.
    @Test func steadyNoiseIsToldFromBackgroundTalk() throws {
        let decoder = try Decoder()
        let adaptation = NoiseAdaptation()
        var seen: [String: Double] = [:]
        for name in ["pink", "brown", "hum", "babble"] {
            let audio = PCM.int16(from: Array(try noise(name).prefix(3 * 16_000)))
            let variability: Double = try #require(decoder.noiseVariability(of: audio[...], quietest: adaptation.noiseVariabilityQuietest),
                                                   "three seconds of \(name) are enough to judge")
            seen[name] = variability
        }
        let limit = adaptation.maxNoiseVariability
        #expect(seen["pink"]! < limit && seen["brown"]! < limit && seen["hum"]! < limit, "\(seen)")
        #expect(seen["babble"]! > limit, "\(seen)")
        #expect(decoder.noiseVariability(of: [Int16](repeating: 0, count: 100)[...], quietest: 0.1) == nil)
    }

    /// Under a command the gate looks at the recording's quietest frames, where there is only the
    /// noise: mains hum is steady there and background talk is not, at the SNR where telling them
    /// apart matters most. (Over the quieter half of an utterance as the endpointer cut it, the
    /// command's own quiet sounds counted too, and hum under commands measured 0.28-0.83 against
    /// background talk's 0.58-0.75; BENCHMARKS.md in git history, "Silence that sounds like the room".)
    @Test func humUnderACommandIsSteadyNoise() throws {
        let decoder = try Decoder()
        let adaptation = NoiseAdaptation()
        let hum = try noise("hum"), babble = try noise("babble")
        let recordings = Fixtures.wavs(in: Fixtures.builtins).filter { !$0.lastPathComponent.hasPrefix("none") }.prefix(20)
        #expect(recordings.count == 20)
        for (index, url) in recordings.enumerated() {
            let speech = try WAVFile(contentsOf: url).samples
            func judged(_ noise: [Float]) throws -> Double {
                let mixed = PCM.int16(from: Perturbation.mix(speech: speech, noise: noise, snr: 6, sampleRate: 16_000, seed: UInt64(index)))
                return try #require(decoder.noiseVariability(of: mixed[...], quietest: adaptation.noiseVariabilityQuietest))
            }
            let inHum = try judged(hum), inBabble = try judged(babble)
            #expect(inHum < adaptation.maxNoiseVariability, "\(url.lastPathComponent) in hum: \(inHum)")
            #expect(inBabble > adaptation.maxNoiseVariability, "\(url.lastPathComponent) in babble: \(inBabble)")
        }
    }

    /// Two optional words in a row are two empty transitions in a row. PocketSphinx's search
    /// follows one per word end, so unless the grammar is closed over them, "go forward" cannot
    /// skip both "(the) (big)" without a pause between the words.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func consecutiveOptionalWordsCanAllBeSkipped() throws {
        var grammar = Grammar()
        let afterGo = grammar.addState(), afterThe = grammar.addState(), afterBig = grammar.addState()
        grammar.add(from: grammar.start, to: afterGo, word: "go")
        grammar.add(from: afterGo, to: afterThe, word: "the")
        grammar.add(from: afterGo, to: afterThe, word: nil)
        grammar.add(from: afterThe, to: afterBig, word: "big")
        grammar.add(from: afterThe, to: afterBig, word: nil)
        var state = afterBig
        for word in ["forward", "ten"] {
            let next = grammar.addState()
            grammar.add(from: state, to: next, word: word)
            state = next
        }
        grammar.add(from: state, to: grammar.final, word: "meters")
        let decoder = try Decoder()
        try decoder.add(grammar, named: "optional")
        try decoder.select("optional")
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

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func grammarWordsMissingFromTheDictionaryAreNamed() {
        let decoder = try! Decoder()
        let file = Fixtures.corpus.appendingPathComponent("defective.gram")
        #expect(performing: { try decoder.addJSGF(file: file, named: "defective") }, throws: { error in
            (error as? RecognitionError)?.message == "\(file.path): not in the pronunciation dictionary: really_bad_word"
        })
    }

    /// The decoder starts without cmudict's 134 000 words and takes each from the lexicon the
    /// first time it is asked for, alternates included, as if all had been loaded.
    @Test func dictionaryWordsArriveWhenFirstAskedFor() throws {
        let decoder = try Decoder()
        #expect(decoder.pronunciation(of: "tomato(2)") == "T AH M AA T OW")
        #expect(decoder.pronunciation(of: "tomato") == "T AH M EY T OW")
        #expect(decoder.pronunciation(of: "read") == "R EH D")
        #expect(decoder.pronunciation(of: "read(2)") == "R IY D")
        #expect(decoder.pronunciation(of: "read(3)") == nil)
        #expect(decoder.pronunciation(of: "zzyzxq") == nil)
        // A word the dictionary has gets a new pronunciation as its next alternate.
        #expect(decoder.addWord("live", phones: "L AY F"))
        #expect(decoder.pronunciation(of: "live") == "L AY V")
        #expect(decoder.pronunciation(of: "live(3)") == "L AY F")
    }

    @Test func lexiconFindsEveryPronunciationOfAWord() throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("small.dict")
        try Data(";;; a comment\nread(2) R IY D\nread R EH D\n'bout B AW T\nreader  R IY D ER # comment\n\nx(1 EH K S\n".utf8).write(to: file)
        let lexicon = try Lexicon(contentsOf: file)
        // The base spelling first, whatever the file's order: PocketSphinx needs it before "read(2)".
        #expect(lexicon.entries(for: "read") == [.init(name: "read", phones: "R EH D"), .init(name: "read(2)", phones: "R IY D")])
        #expect(lexicon.entries(for: "'bout") == [.init(name: "'bout", phones: "B AW T")])
        #expect(lexicon.entries(for: "reader") == [.init(name: "reader", phones: "R IY D ER")])
        #expect(lexicon.entries(for: "x(1") == [.init(name: "x(1", phones: "EH K S")])
        #expect(lexicon.entries(for: "rea").isEmpty)
        #expect(lexicon.entries(for: "").isEmpty)
        #expect(throws: RecognitionError.self) { try Lexicon(contentsOf: file.appendingPathExtension("missing")) }
    }

    /// Lines are read back from the file at lookup; a file rewritten since gives no entry rather
    /// than a wrong one or a crash.
    @Test func lexiconIgnoresLinesChangedAfterIndexing() throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("changing.dict")
        try Data("read R EH D\nreader R IY D ER\nstop S T AA P\n".utf8).write(to: file)
        let lexicon = try Lexicon(contentsOf: file)
        #expect(lexicon.entries(for: "stop") == [.init(name: "stop", phones: "S T AA P")])
        // Rewritten in place: the same offsets now hold other words, and the file is shorter.
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("rear R IH R\nroad R OW D\n".utf8))
        try handle.close()
        #expect(lexicon.entries(for: "read").isEmpty)
        #expect(lexicon.entries(for: "reader").isEmpty)
        #expect(lexicon.entries(for: "stop").isEmpty)
    }

    /// Verification compares two paths over the same frames: a segment that straddles the range
    /// counts in proportion to its frames inside it.
    @Test func acousticScoreOverFramesProratesStraddlingSegments() {
        let hypothesis = Hypothesis(words: [
            WordSegment(word: "<sil>", startFrame: 0, endFrame: 9, acousticScore: -100, isFiller: true),
            WordSegment(word: "stop", startFrame: 10, endFrame: 29, acousticScore: -400, isFiller: false),
            WordSegment(word: "the", startFrame: 30, endFrame: 39, acousticScore: -50, isFiller: false),
        ], score: 0, alternatives: [], frameCount: 40)
        #expect(hypothesis.acousticScore(frames: 0...39) == Double(hypothesis.acousticScore))
        #expect(hypothesis.acousticScore(frames: 10...29) == -400)
        #expect(hypothesis.acousticScore(frames: 5...34) == -50 - 400 - 25)
        #expect(hypothesis.acousticScore(frames: 40...50) == 0)
        // Each frame's offset comes off the frames counted, and only those.
        var onModelScale = hypothesis
        onModelScale.frameScoreOffsets = [Int32](repeating: 2, count: 40)
        #expect(onModelScale.acousticScore == hypothesis.acousticScore - 80)
        #expect(onModelScale.acousticScore(frames: 10...29) == -400 - 40)
        #expect(onModelScale.acousticScore(frames: 35...50) == -25 - 10)
        #expect(onModelScale.acousticScore(frames: 40...50) == 0)
    }

    /// PocketSphinx scores only the senones a search's active HMMs need, each frame relative to
    /// the best of them, so a path's acoustic score depends on what else the search was
    /// considering. With each frame's offset taken off, it is on the model's own scale: the same
    /// as when every senone is scored (-compallsen), where the raw scores differ. Utterance
    /// verification compares a command's path with a phone loop's this way.
    @Test func acousticScoresAreOnTheModelsOwnScale() throws {
        let audio = try samples(Fixtures.audio.appendingPathComponent("demo/stop.wav"))
        var grammar = Grammar()
        grammar.addPhrase(["stop"])
        grammar.addGarbageLoop(units: ["go", "yes", "time", "open", "music", "number"], penalty: 1e-10)
        func decodeStop(_ configuration: DecoderConfiguration) throws -> Hypothesis {
            let decoder = try Decoder(configuration: configuration)
            try decoder.add(grammar, named: "stop")
            try decoder.select("stop")
            return try decode(decoder, audio)
        }
        var everySenone = DecoderConfiguration()
        everySenone.arguments["-compallsen"] = "yes"
        let active = try decodeStop(DecoderConfiguration())
        let all = try decodeStop(everySenone)
        #expect(active.text == "stop")
        #expect(active.words.map(\.word) == all.words.map(\.word) && active.words.map(\.startFrame) == all.words.map(\.startFrame))
        // Every scored frame has its offset (the search ends one frame before the feature count).
        #expect(active.frameScoreOffsets.count >= active.frameCount - 1 && !active.frameScoreOffsets.isEmpty)
        let frames = 0...(active.frameCount - 1)
        var raw = (active, all)
        raw.0.frameScoreOffsets = []
        raw.1.frameScoreOffsets = []
        let rawGap = abs(raw.0.acousticScore(frames: frames) - raw.1.acousticScore(frames: frames)) / Double(frames.count)
        let gap = abs(active.acousticScore(frames: frames) - all.acousticScore(frames: frames)) / Double(frames.count)
        #expect(rawGap > 1, "the raw scores should depend on the senones scored")
        #expect(gap < 0.05, "on the model's scale: \(gap) per frame apart")
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
