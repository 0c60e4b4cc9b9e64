import Foundation
import HeedTestSupport
import Testing
@testable import HeedAudio

/// The learned mask for background talk: the weights Heed ships, on a real mix of a command
/// over babble, against what the script that trained them computes.
@Suite struct TalkMaskTests {
    static let weights = Fixtures.root.appendingPathComponent("Models/talk-mask.weights")
    static let golden = Fixtures.root.appendingPathComponent("Tests/Golden")

    func samples(_ name: String) throws -> [Int16] {
        PCM.int16(from: try WAVFile(contentsOf: Self.golden.appendingPathComponent(name)).samples)
    }

    /// Power of `samples` in dB (full scale about 90), as the recognizer measures frames.
    func level(_ samples: ArraySlice<Int16>) -> Double {
        10 * log10(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count) + 1)
    }

    /// `masked` against the script's output `expected`: within rounding of float32 against float64.
    func expectSameAsTheScript(_ masked: [Int16], _ expected: [Int16], input: [Int16]) {
        #expect(masked.count == input.count)
        let differences = zip(masked, expected).map { abs(Int($0) - Int($1)) }
        let rms = (differences.reduce(0.0) { $0 + Double($1 * $1) } / Double(differences.count)).squareRoot()
        #expect(rms < 1, "RMS difference \(rms) from the script's output")
        #expect(differences.max()! <= 8, "largest difference \(differences.max()!) from the script's output")
    }

    /// "cancel" said over six-voice babble at 12 dB (the builtins suite's cancel-en-130.wav as
    /// `heed test --noise babble --snr 12` mixes it), masked at floor 0.1 by
    /// `scripts/talk-mask.py` with the same weights: Swift's STFT, network and overlap-add must
    /// give the same audio, within rounding of float32 against float64.
    @Test func matchesTheTrainingScriptSampleForSample() throws {
        let mask = try TalkMask(contentsOf: Self.weights)
        let input = try samples("cancel-babble-12dB.wav")
        let expected = try samples("cancel-babble-12dB-masked-0.1.wav")
        expectSameAsTheScript(try #require(try mask.masked(input[...], floors: [0.1]).first), expected, input: input)
    }

    /// The steady-noise mask (a HEEDTMK2 file: the network also sees each bin's noise floor) on
    /// builtins' cancel-en_m3-175.wav in pink noise at 6 dB, as `heed test --noise pink --snr 6`
    /// mixes it, against `scripts/steady-mask.py`'s output with the same weights at floor 0.1.
    @Test func steadyNoiseMaskMatchesItsTrainingScriptSampleForSample() throws {
        let mask = try TalkMask(contentsOf: Fixtures.root.appendingPathComponent("Models/steady-mask.weights"))
        #expect(mask.noiseFloorInput)
        #expect(try TalkMask(contentsOf: Self.weights).noiseFloorInput == false)
        let input = try samples("cancel-pink-6dB.wav")
        let expected = try samples("cancel-pink-6dB-steady-masked-0.1.wav")
        let masked = try #require(try mask.masked(input[...], floors: [0.1]).first)
        expectSameAsTheScript(masked, expected, input: input)
        // The noise before the command goes down by more than 10 dB; the command keeps its level.
        let second = 16_000
        #expect(level(input[0..<second * 4 / 10]) - level(masked[0..<second * 4 / 10]) > 10)
        let command = second * 52 / 100..<second
        #expect(abs(level(input[command]) - level(masked[command])) < 3)
    }

    /// The babble before and after the command goes down by well over 10 dB; the command itself
    /// keeps its level within 2 dB (the script's output: -20, -18 and -0.7 dB).
    @Test func turnsTheVoicesBehindDownAndKeepsTheCommand() throws {
        let mask = try TalkMask(contentsOf: Self.weights)
        let input = try samples("cancel-babble-12dB.wav")
        let masked = try #require(try mask.masked(input[...], floors: [0.1]).first)
        let second = 16_000
        for (name, stretch) in [("babble before", 0..<second * 35 / 100), ("babble after", second * 15 / 10..<second * 21 / 10)] {
            let drop = level(input[stretch]) - level(masked[stretch])
            #expect(drop > 12, "\(name): \(drop) dB down")
        }
        let command = second / 2..<second * 12 / 10
        let change = level(input[command]) - level(masked[command])
        #expect(abs(change) < 2, "the command changed by \(change) dB")
    }

    /// At floor 1 nothing is turned down: the analysis and overlap-add give back the input.
    @Test func floorOneGivesBackTheInput() throws {
        let mask = try TalkMask(contentsOf: Self.weights)
        let input = try samples("cancel-babble-12dB.wav")
        let copies = try mask.masked(input[...], floors: [1, 0.1])
        #expect(copies.count == 2)
        let worst = zip(copies[0], input).map { abs(Int($0) - Int($1)) }.max()!
        #expect(worst <= 1, "largest difference \(worst)")
        #expect(copies[1] != input)
        #expect(try mask.masked([][...], floors: [0.1]) == [[]])
    }

    /// A file that is not the weights, or is cut short, is named with its problem.
    @Test func unusableWeightsAreExplained() throws {
        let directory = try Fixtures.temporaryDirectory()
        let full = try Data(contentsOf: Self.weights)
        let cases: [(String, Data, String)] = [
            ("text.weights", Data("not weights at all, just some text".utf8), "no HEEDTMK1 or HEEDTMK2 header"),
            ("short.weights", full.prefix(full.count - 4), "truncated"),
            ("empty.weights", Data(), "no HEEDTMK1 or HEEDTMK2 header"),
        ]
        for (name, data, problem) in cases {
            let url = directory.appendingPathComponent(name)
            try data.write(to: url)
            #expect {
                try TalkMask(contentsOf: url)
            } throws: { error in
                let description = (error as? TalkMask.LoadError)?.description ?? ""
                return description.hasPrefix(url.path + ": ") && description.contains(problem)
            }
        }
        #expect(throws: TalkMask.LoadError.self) { try TalkMask(contentsOf: directory.appendingPathComponent("missing.weights")) }
    }

    /// The weights are read for each use and not kept (memory: a run that meets both kinds of
    /// noise would otherwise hold both networks). A weight that is not a number is found when
    /// they are read, and named, rather than masking audio with it, even after a use that was fine.
    @Test func theWeightsAreReadForEachUseAndAWeightThatIsNotANumberIsNamed() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("changing.weights")
        var bytes = [UInt8](try Data(contentsOf: Self.weights))
        try Data(bytes).write(to: url)
        let mask = try TalkMask(contentsOf: url)
        let input = try samples("cancel-babble-12dB.wav")[...]
        #expect(try mask.masked(input, floors: [0.1]).first?.count == input.count)
        let nan = Float.nan.bitPattern
        let original = bytes
        // A weight early in W1, the last of W1 (which streams past in pieces, the last read after
        // the rest were used), and one in W3 (read whole, before W1).
        let firstLayerCount = mask.inputs * mask.hidden
        let thirdLayer = firstLayerCount + mask.hidden + mask.hidden * mask.hidden + mask.hidden  // past b1, W2 and b2
        for weight in [1000, firstLayerCount - 1, thirdLayer + 7] {
            bytes = original
            for index in 0..<4 { bytes[28 + 4 * weight + index] = UInt8((nan >> (8 * UInt32(index))) & 0xff) }
            try Data(bytes).write(to: url)
            #expect {
                try mask.masked(input, floors: [0.1])
            } throws: { error in
                (error as? TalkMask.LoadError)?.description == url.path + ": a weight is not a finite number"
            }
        }
        try Data(original).write(to: url)
        #expect(try mask.masked(input, floors: [0.1]) == (try TalkMask(contentsOf: Self.weights).masked(input, floors: [0.1])))
    }
}
