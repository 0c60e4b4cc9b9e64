import Foundation
import HeedTestSupport
import Testing
@testable import HeedAudio

/// The speech-to-noise estimate read back from a mix made at a known ratio.
@Suite struct SpeechToNoiseTests {
    /// Three seconds of pink noise with a one-second tone in the middle, `snr` dB above the
    /// noise's mean power. The estimate reads (tone + noise) against the noise's quieter frames,
    /// so it lies a little above `snr`, and it follows it.
    @Test(arguments: [6.0, 12, 24])
    func theEstimateFollowsTheMix(snr: Double) throws {
        let noise = try RoomNoise.samples("pink").map { Float($0) / 32_768 * 0.05 }
        let noisePower = noise.reduce(0) { $0 + $1 * $1 } / Float(noise.count)
        let amplitude = (2 * noisePower * Float(pow(10, snr / 10))).squareRoot()
        let mixed = noise.enumerated().map { i, n in
            (16_000..<32_000).contains(i) ? n + amplitude * Float(sin(2 * Double.pi * 440 * Double(i) / 16_000)) : n
        }
        let estimate = try #require(SpeechToNoise.estimatedDB(of: PCM.int16(from: mixed)[...], sampleRate: 16_000))
        let expected = 10 * log10(pow(10, snr / 10) + 1)
        #expect(estimate > expected - 0.5 && estimate < expected + 2, "\(snr) dB read as \(estimate)")
    }

    @Test func silenceAndShortAudioHaveNoAnswer() {
        #expect(SpeechToNoise.estimatedDB(of: [Int16](repeating: 0, count: 16_000)[...], sampleRate: 16_000) == nil)
        #expect(SpeechToNoise.estimatedDB(of: [Int16](repeating: 100, count: 1000)[...], sampleRate: 16_000) == nil)
    }

    /// A voice between stretches of digital silence has no noise under it at all.
    @Test func speechOverDigitalSilenceIsInfinitelyClear() throws {
        let samples = (0..<16_000).map { i in i < 8000 ? Int16(0) : Int16(5000 * sin(Double(i) / 5)) }
        #expect(try #require(SpeechToNoise.estimatedDB(of: samples[...], sampleRate: 16_000)) == .infinity)
    }
}
