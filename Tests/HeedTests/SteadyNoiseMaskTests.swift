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
}
