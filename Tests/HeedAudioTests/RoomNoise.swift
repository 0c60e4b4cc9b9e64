import Foundation
import HeedTestSupport
import HeedAudio

/// The room noises the suites are mixed with (Audio/noise), as 16-bit samples.
enum RoomNoise {
    /// The first `seconds` of Audio/noise/`name`.wav.
    static func samples(_ name: String, seconds: Int = 3) throws -> ArraySlice<Int16> {
        let wav = try WAVFile(contentsOf: Fixtures.audio.appendingPathComponent("noise/\(name).wav"))
        return PCM.int16(from: wav.samples)[..<(wav.format.sampleRate * seconds)]
    }
}
