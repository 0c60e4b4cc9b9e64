import Foundation
import HeedTestSupport
import Testing
@testable import HeedAudio

/// Mains hum told from the other low noises, on the room noises the suites are mixed with.
@Suite struct MainsHumTests {
    /// Hum repeats every 20 ms; brown noise, which lies in the same band, and pink noise do not.
    @Test func humRepeatsEveryMainsPeriodAndBrownNoiseDoesNot() throws {
        let hum = try #require(MainsHum.periodicity(of: try RoomNoise.samples("hum"), sampleRate: 16_000))
        #expect(hum > 0.9, "hum: \(hum)")
        for name in ["brown", "pink"] {
            let periodicity = try #require(MainsHum.periodicity(of: try RoomNoise.samples(name), sampleRate: 16_000))
            #expect(periodicity < 0.2, "\(name): \(periodicity)")
        }
    }

    /// American mains: 60 Hz and a harmonic, over a DC offset that must not read as a period.
    @Test func sixtyHertzHumCountsToo() throws {
        let hum = (0..<32_000).map { i -> Int16 in
            let t = Double(i) / 16_000
            return Int16(3000 + 4000 * sin(2 * Double.pi * 60 * t) + 1500 * sin(2 * Double.pi * 180 * t))
        }
        let periodicity = try #require(MainsHum.periodicity(of: hum[...], sampleRate: 16_000))
        #expect(periodicity > 0.95, "\(periodicity)")
        let offset = [Int16](repeating: 3000, count: 32_000)
        #expect(MainsHum.periodicity(of: offset[...], sampleRate: 16_000) == nil)
    }

    @Test func tooShortHasNoAnswer() throws {
        #expect(MainsHum.periodicity(of: try RoomNoise.samples("hum")[..<500], sampleRate: 16_000) == nil)
    }
}
