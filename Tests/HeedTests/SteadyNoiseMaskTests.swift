import Foundation
import HeedAudio
import HeedTestSupport
import Testing
@testable import Heed

/// Which steady noises go through the steady-noise mask.
@Suite struct SteadyNoiseMaskTests {
    static let weights = Fixtures.root.appendingPathComponent("Models/steady-mask.weights")

    /// "cancel" mixed as the suites mix it: in pink noise, which covers the consonants, it goes
    /// through the mask at every SNR; in brown noise, which lies below 1 kHz, only when the noise
    /// is strong; in mains hum never, unless the gate is off.
    @Test func broadbandAndStrongLowNoiseGoThroughTheMaskAndHumDoesNot() throws {
        var steady = SteadyNoiseMask(mask: try TalkMask(contentsOf: Self.weights))
        let recording = Fixtures.builtins.appendingPathComponent("cancel-en-130.wav")
        func mixed(_ noise: String, _ snr: Double) throws -> ArraySlice<Int16> {
            try SuiteMix.mixed(recording, as: "builtins/cancel-en-130.wav", with: noise, snr: snr)[...]
        }
        for (snr, brownMasked) in [(6.0, true), (9, true), (12, false), (24, false)] {
            for (noise, masked) in [("pink", true), ("brown", brownMasked), ("hum", false)] {
                #expect(steady.isFor(try mixed(noise, snr), sampleRate: 16_000) == masked, "\(noise) at \(snr) dB")
            }
        }
        steady.lowBandBelowSNR = nil
        #expect(!steady.isFor(try mixed("brown", 6), sampleRate: 16_000))
        steady.minShareAbove1kHz = nil
        #expect(steady.isFor(try mixed("hum", 6), sampleRate: 16_000))
    }

    /// Which noise holds an utterance open for the mask (`SteadyNoiseMask.trailingSilence`): pink
    /// noise up to the suites' 12 dB mixes, not milder pink noise, and never noise below 1 kHz.
    @Test func onlyStrongBroadbandNoiseHoldsAnUtteranceOpen() throws {
        var steady = SteadyNoiseMask(mask: try TalkMask(contentsOf: Self.weights))
        let recording = Fixtures.builtins.appendingPathComponent("cancel-en-130.wav")
        func mixed(_ noise: String, _ snr: Double) throws -> ArraySlice<Int16> {
            try SuiteMix.mixed(recording, as: "builtins/cancel-en-130.wav", with: noise, snr: snr)[...]
        }
        for (noise, snr, held) in [("pink", 6.0, true), ("pink", 12, true), ("pink", 18, false), ("pink", 24, false), ("brown", 6, false), ("hum", 6, false)] {
            #expect((steady.trailingSilence(over: try mixed(noise, snr), sampleRate: 16_000) != nil) == held, "\(noise) at \(snr) dB")
        }
        steady.holdBelowSNR = nil
        #expect(steady.trailingSilence(over: try mixed("pink", 24), sampleRate: 16_000) == 0.35)
        steady.minShareAbove1kHz = nil  // hum through the mask, but still not held
        #expect(steady.trailingSilence(over: try mixed("hum", 6), sampleRate: 16_000) == nil)
        steady.trailingSilence = nil
        #expect(steady.trailingSilence(over: try mixed("pink", 6), sampleRate: 16_000) == nil)
    }

    /// "set the lathe to high speed" (Audio/workshop, en voice) in pink noise at 6 dB: one masked
    /// copy hears "to", the other "at", one command in other words. Agreeing on the meaning, the
    /// copies give it; agreeing on the words, they give nothing.
    @Test func copiesThatHearOneCommandInOtherWordsAgree() throws {
        let file = "workshop/setSpeed-09-en-130.wav"
        let mixed = try SuiteMix.mixed(Fixtures.audio.appendingPathComponent(file), as: file, with: "pink", snr: 6)
        #expect(try Self.workshop(heard: mixed) { $0.agreesOnMeaning = true } == [Intent(name: "setSpeed", slots: ["machine": "lathe", "speed": "high"])])
        #expect(try Self.workshop(heard: mixed) { $0.agreesOnMeaning = false }.isEmpty)
    }

    /// "remind me in ten minutes" (Audio/workshop, en-us voice) in pink noise at 12 dB, as the
    /// suite mixes it: one masked copy hears "ten", the other "two", so the copies alone give no
    /// command. Decoded unmasked it is "ten" again, two of three agree, and the lower confidence
    /// of the two (about 0.7) clears the tie-break's floor; a floor above it does not. Ended after
    /// the endpointer's own silence: held open (`trailingSilence`), both copies hear "ten".
    @Test func anUnmaskedDecodeBreaksATieBetweenTheCopies() throws {
        let file = "workshop/setTimer-14-en-us-130.wav"
        let mixed = try SuiteMix.mixed(Fixtures.audio.appendingPathComponent(file), as: file, with: "pink", snr: 12)
        let ten = [Intent(name: "setTimer", slots: ["minutes": "ten"])]
        #expect(try Self.workshop(heard: mixed) { $0.trailingSilence = nil; $0.tieBreakMinConfidence = nil }.isEmpty)
        #expect(try Self.workshop(heard: mixed) { $0.trailingSilence = nil; $0.tieBreakMinConfidence = 0.6 } == ten)
        #expect(try Self.workshop(heard: mixed) { $0.trailingSilence = nil; $0.tieBreakMinConfidence = 0.9 }.isEmpty)
        #expect(try Self.workshop(heard: mixed) { $0.tieBreakMinConfidence = nil } == ten)
    }

    /// "pause" (Audio/builtins, en+f4 voice) in pink noise at 12 dB, as the suite mixes it. Ended
    /// where the endpointer, hearing the denoised audio, puts the end, the masked copies hear no
    /// command. Held open until 0.35 s of silence (the default), they also hear the audio after
    /// that end, and both hear "pause".
    @Test func anUtteranceInSteadyNoiseIsHeldOpenForTheMaskToHearItsEnd() throws {
        let file = "builtins/pause-en_f4-130.wav"
        let mixed = try SuiteMix.mixed(Fixtures.audio.appendingPathComponent(file), as: file, with: "pink", snr: 12)
        let cut = try Self.builtins(heard: mixed) { $0.trailingSilence = nil }
        let held = try Self.builtins(heard: mixed) { _ in }
        #expect(cut.map(\.understood) == [false])
        #expect(held.filter(\.understood).map(\.transcript) == ["pause"])
    }

    /// The built-in commands' utterances in `samples` with the steady mask set up by `setUp`.
    static func builtins(heard samples: [Int16], _ setUp: (inout SteadyNoiseMask) -> Void) throws -> [Utterance] {
        var steady = SteadyNoiseMask(mask: try TalkMask(contentsOf: weights))
        setUp(&steady)
        var options = RecognizerOptions()
        options.steadyNoiseMask = steady
        return try CommandRecognizer(options: options, authorization: TestAuthorization.speechRecognition()).recognize(samples: samples)
    }

    /// The intents the workshop context hears in `samples` with the steady mask set up by `setUp`.
    static func workshop(heard samples: [Int16], _ setUp: (inout SteadyNoiseMask) -> Void) throws -> [Intent?] {
        var steady = SteadyNoiseMask(mask: try TalkMask(contentsOf: weights))
        setUp(&steady)
        var options = RecognizerOptions()
        options.steadyNoiseMask = steady
        return try ContextPipelineTests.recognizer(context: "workshop", options: options).recognize(samples: samples).filter(\.understood).map(\.intent)
    }
}
