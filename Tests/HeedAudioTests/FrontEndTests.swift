import Foundation
import Testing
@testable import HeedAudio

/// The front end before endpointing and decoding: high-pass filter and noise suppression.
@Suite struct FrontEndTests {
    func int16(_ samples: [Float]) -> [Int16] { PCM.int16(from: samples) }
    func level(_ samples: ArraySlice<Int16>) -> Double { Perturbation.level(of: PCM.float(from: Array(samples))) }

    @Test func highPassRemovesHumAndKeepsSpeechBand() {
        var filter = HighPassFilter(cutoff: 100, sampleRate: 16_000)
        let hum = filter.process(int16(tone(50, rate: 16_000, seconds: 1, amplitude: 0.5)))
        // A second-order Butterworth is 12.3 dB down an octave below its cutoff.
        #expect(toneAmplitude(PCM.float(from: hum), frequency: 50, rate: 16_000) < 0.5 * pow(10, -11.0 / 20))
        var fresh = HighPassFilter(cutoff: 100, sampleRate: 16_000)
        let voice = fresh.process(int16(tone(1_000, rate: 16_000, seconds: 1, amplitude: 0.5)))
        #expect(abs(toneAmplitude(PCM.float(from: voice), frequency: 1_000, rate: 16_000) - 0.5) < 0.01)
    }

    static let methods: [NoiseSuppressor.Method] = [.speex(maxAttenuationDB: 15), .webRTC(.high)]

    @Test(arguments: methods) func suppressorPushesSteadyNoiseDown(method: NoiseSuppressor.Method) throws {
        var generator = SplitMix64(seed: 5)
        let noise = int16((0..<48_000).map { _ in Float.random(in: -0.1...0.1, using: &generator) })
        let suppressor = try #require(NoiseSuppressor(method, sampleRate: 16_000))
        let out = suppressor.process(noise) + suppressor.flush()
        #expect(out.count == noise.count)
        // Once it has learned the noise (the first second), the rest comes out at least 10 dB down.
        #expect(level(out[16_000...]) < level(noise[16_000...]) - 10)
    }

    @Test(arguments: methods) func suppressorKeepsAToneThatRisesOutOfTheNoise(method: NoiseSuppressor.Method) throws {
        var generator = SplitMix64(seed: 6)
        let noise = (0..<48_000).map { _ in Float.random(in: -0.02...0.02, using: &generator) }
        let toneStart = 32_000
        let mixed = noise.indices.map { index in
            noise[index] + (index >= toneStart ? 0.3 * Float(sin(2 * Double.pi * 700 * Double(index) / 16_000)) : 0)
        }
        let suppressor = try #require(NoiseSuppressor(method))
        let out = PCM.float(from: suppressor.process(int16(mixed)) + suppressor.flush())
        let kept = toneAmplitude(Array(out[(toneStart + 1_600)...]), frequency: 700, rate: 16_000)
        #expect(kept > 0.3 * pow(10, -3.0 / 20), "tone came out at \(kept)")
    }

    @Test(arguments: methods) func suppressorOutputDoesNotDependOnChunking(method: NoiseSuppressor.Method) throws {
        var generator = SplitMix64(seed: 7)
        let input = int16((0..<8_000).map { _ in Float.random(in: -0.2...0.2, using: &generator) })
        let whole = try #require(NoiseSuppressor(method))
        let expected = whole.process(input) + whole.flush()
        let chunked = try #require(NoiseSuppressor(method))
        var got: [Int16] = []
        for start in stride(from: 0, to: input.count, by: 77) { got += chunked.process(Array(input[start..<min(start + 77, input.count)])) }
        got += chunked.flush()
        #expect(got == expected)
    }

    @Test func webRTCRefusesARateItCannotRun() {
        #expect(NoiseSuppressor(.webRTC(.high), sampleRate: 22_050) == nil)
        #expect(NoiseSuppressor(.webRTC(.high), sampleRate: 16_000)?.frameLength == 160)
    }

    @Test func maskingNoiseHasTheRequestedLevelAndShapeAndIsTheSameEveryTime() {
        let sine = int16(tone(3_000, rate: 16_000, seconds: 1, amplitude: 0.1))
        let level = MaskingNoise.rms(ofLevelDB: 40)
        #expect(abs(level - 100) < 1e-9)
        let masked = MaskingNoise.added(to: sine, level: level)
        #expect(masked == MaskingNoise.added(to: sine, level: level))
        let added = zip(masked, sine).map { Double($0) - Double($1) }
        let power = added.reduce(0) { $0 + $1 * $1 } / Double(added.count)
        let mean = added.reduce(0, +) / Double(added.count)
        #expect(abs(power.squareRoot() - 100) < 5, "rms \(power.squareRoot())")
        #expect(abs(mean) < 10, "mean \(mean)")
        // Low-passed: sample-to-sample differences carry far less power than the noise itself
        // (white noise's carry twice as much).
        let differences = zip(added.dropFirst(), added).map { $0 - $1 }
        let differencePower = differences.reduce(0) { $0 + $1 * $1 } / Double(differences.count)
        #expect(differencePower < 0.7 * power, "difference power \(differencePower), power \(power)")
        // The tone under it is untouched.
        #expect(abs(toneAmplitude(PCM.float(from: masked), frequency: 3_000, rate: 16_000) - 0.1) < 0.002)
        #expect(MaskingNoise.added(to: sine, level: 0) == sine)
    }

    @Test func maskingNoiseClipsInsteadOfWrapping() {
        let loud = [Int16](repeating: .max, count: 1_000) + [Int16](repeating: .min, count: 1_000)
        let masked = MaskingNoise.added(to: loud, level: 3_000)
        #expect(masked[..<1_000].allSatisfy { $0 > 20_000 })
        #expect(masked[1_000...].allSatisfy { $0 < -20_000 })
    }
}
