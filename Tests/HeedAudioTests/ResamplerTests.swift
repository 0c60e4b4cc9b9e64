import Foundation
import Testing
@testable import HeedAudio

/// Amplitude of `frequency` in `signal` (single-bin DFT), ignoring the filter's edges.
func toneAmplitude(_ signal: [Float], frequency: Double, rate: Int) -> Double {
    let trimmed = signal.dropFirst(signal.count / 10).dropLast(signal.count / 10)
    var re = 0.0, im = 0.0
    for (n, x) in trimmed.enumerated() {
        let phase = 2 * Double.pi * frequency * Double(n) / Double(rate)
        re += Double(x) * cos(phase)
        im += Double(x) * sin(phase)
    }
    return 2 * (re * re + im * im).squareRoot() / Double(trimmed.count)
}

func tone(_ frequency: Double, rate: Int, seconds: Double, amplitude: Float = 0.5) -> [Float] {
    (0..<Int(Double(rate) * seconds)).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

@Suite struct ResamplerTests {
    @Test(arguments: [8_000, 16_000, 22_050, 32_000, 44_100, 48_000])
    func keepsSpeechBandTone(rate: Int) {
        let out = Resampler.convert(tone(1_000, rate: rate, seconds: 1), from: rate, to: 16_000)
        #expect(abs(out.count - 16_000) <= 1)
        #expect(abs(toneAmplitude(out, frequency: 1_000, rate: 16_000) - 0.5) < 0.01)
    }

    @Test(arguments: [22_050, 32_000, 44_100, 48_000])
    func removesToneAboveNewNyquist(rate: Int) {
        // 10 kHz would alias to 6 kHz if samples were simply dropped.
        let out = Resampler.convert(tone(10_000, rate: rate, seconds: 1), from: rate, to: 16_000)
        #expect(toneAmplitude(out, frequency: 6_000, rate: 16_000) < 0.005)
        // Away from the tone's abrupt start and end, nothing of it is left.
        #expect(out[1_000..<15_000].map { abs($0) }.max()! < 0.005)
    }

    @Test func chunkingDoesNotChangeOutput() {
        let input = tone(440, rate: 44_100, seconds: 0.5)
        let whole = Resampler.convert(input, from: 44_100, to: 16_000)
        var resampler = Resampler(from: 44_100, to: 16_000)
        var chunked: [Float] = []
        var offset = 0
        for size in [1, 7, 100, 441, 4096, 3, 20000] where offset < input.count {
            let end = min(input.count, offset + size)
            chunked += resampler.process(Array(input[offset..<end]))
            offset = end
        }
        chunked += resampler.process(Array(input[offset...]))
        chunked += resampler.finish()
        #expect(chunked == whole)
    }

    @Test func keepsTiming() {
        // A click at 0.25 s stays at 0.25 s.
        var input = [Float](repeating: 0, count: 22_050)
        input[22_050 / 4] = 1
        let out = Resampler.convert(input, from: 22_050, to: 16_000)
        let peak = out.indices.max { abs(out[$0]) < abs(out[$1]) }!
        #expect(abs(peak - 4_000) <= 1)
    }

    @Test func passthroughAtSameRate() {
        let input = tone(300, rate: 16_000, seconds: 0.1)
        #expect(Resampler.convert(input, from: 16_000, to: 16_000) == input)
    }
}
