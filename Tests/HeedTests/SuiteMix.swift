import Foundation
import HeedTestSupport
@testable import Heed
import HeedAudio

/// Recordings mixed with noise for tests, as `heed test --noise` mixes them.
enum SuiteMix {
    /// `recording` mixed with one of Audio/noise at `snr` exactly as `heed test` mixes the suite
    /// file `entry` ("suite/file"): the same noise offset, so a test sees what the suite run saw.
    static func mixed(_ recording: URL, as entry: String, with noise: String, snr: Double) throws -> [Int16] {
        let speech = try WAVFile(contentsOf: recording)
        let noiseWAV = try WAVFile(contentsOf: Fixtures.audio.appendingPathComponent("noise/\(noise).wav"))
        let samples = Resampler.convert(speech.samples, from: speech.format.sampleRate, to: 16_000)
        return PCM.int16(from: SuiteRunner.perturbed(samples, by: .noise(noise, snr: snr), file: entry,
                                                     noises: [noise: noiseWAV.samples], sampleRate: 16_000))
    }
}
