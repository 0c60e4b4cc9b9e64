import Foundation
import HeedTestSupport
import Testing
@testable import HeedAudio

/// Where a noise lies in frequency, on the room noises the suites are mixed with.
@Suite struct NoiseBandTests {
    /// Pink noise spreads over the consonants' band; brown noise and mains hum lie below it.
    @Test func pinkNoiseReachesAbove1kHzAndBrownAndHumDoNot() throws {
        let pink = try #require(NoiseBand.share(above: 1000, of: try RoomNoise.samples("pink"), sampleRate: 16_000))
        #expect(pink > 0.35, "pink: \(pink)")
        for name in ["brown", "hum"] {
            let share = try #require(NoiseBand.share(above: 1000, of: try RoomNoise.samples(name), sampleRate: 16_000))
            #expect(share < 0.2, "\(name): \(share)")
        }
    }

    /// A tone is all on one side: at 440 Hz none of it is above 1 kHz, at 3 kHz all of it.
    @Test func aToneIsBelowOrAboveTheFrequency() throws {
        for (frequency, expected) in [(440.0, 0.0), (3000.0, 1.0)] {
            let tone = (0..<16_000).map { Int16(8000 * sin(2 * Double.pi * frequency * Double($0) / 16_000)) }
            let share = try #require(NoiseBand.share(above: 1000, of: tone[...], sampleRate: 16_000))
            #expect(abs(share - expected) < 0.01, "\(frequency) Hz: \(share)")
        }
    }

    @Test func tooShortOrSilentHasNoAnswer() throws {
        #expect(NoiseBand.share(above: 1000, of: try RoomNoise.samples("pink")[..<100], sampleRate: 16_000) == nil)
        #expect(NoiseBand.share(above: 1000, of: [Int16](repeating: 0, count: 48_000)[...], sampleRate: 16_000) == nil)
    }
}
