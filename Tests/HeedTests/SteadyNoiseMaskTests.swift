import Foundation
import HeedAudio
import HeedTestSupport
import Testing
@testable import Heed

/// Which steady noises go through the steady-noise mask.
@Suite struct SteadyNoiseMaskTests {
    static let weights = Fixtures.root.appendingPathComponent("Models/steady-mask.weights")

    /// "cancel" mixed as the suites mix it: in pink noise, which covers the consonants, it goes
    /// through the mask; in brown noise and mains hum, which lie below 1 kHz, it does not,
    /// unless the gate is off.
    @Test func onlyBroadbandNoiseGoesThroughTheMask() throws {
        var steady = SteadyNoiseMask(mask: try TalkMask(contentsOf: Self.weights))
        let recording = Fixtures.builtins.appendingPathComponent("cancel-en-130.wav")
        for snr in [6.0, 12, 24] {
            for (noise, masked) in [("pink", true), ("brown", false), ("hum", false)] {
                let mixed = try SuiteMix.mixed(recording, as: "builtins/cancel-en-130.wav", with: noise, snr: snr)
                #expect(steady.isFor(mixed[...], sampleRate: 16_000) == masked, "\(noise) at \(snr) dB")
            }
        }
        steady.minShareAbove1kHz = nil
        let hum = try SuiteMix.mixed(recording, as: "builtins/cancel-en-130.wav", with: "hum", snr: 6)
        #expect(steady.isFor(hum[...], sampleRate: 16_000))
    }
}
