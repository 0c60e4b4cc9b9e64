import Foundation
import Testing
@testable import HeedAudio

/// Noise mixing, speed and gain used by `heed test` sweeps.
@Suite struct PerturbationTests {
    /// A "command": half a second of tone between two half seconds of near silence.
    func command() -> [Float] {
        [Float](repeating: 0.0001, count: 8_000) + tone(700, rate: 16_000, seconds: 0.5, amplitude: 0.3) + [Float](repeating: 0.0001, count: 8_000)
    }

    func whiteNoise(count: Int, seed: UInt64) -> [Float] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in Float.random(in: -0.5...0.5, using: &generator) }
    }

    @Test func speechLevelIgnoresThePausesAroundACommand() {
        // The tone's power is 0.3²/2; the silence around it must not pull the level down.
        let expected = 10 * log10(0.09 / 2)
        #expect(abs(Perturbation.speechLevel(of: command(), sampleRate: 16_000) - expected) < 0.2)
        #expect(Perturbation.level(of: command()) < expected - 4)
    }

    @Test(arguments: [24.0, 12.0, 6.0, 0.0])
    func mixesAtTheRequestedSNR(snr: Double) {
        let speech = command()
        let mixed = Perturbation.mix(speech: speech, noise: whiteNoise(count: 5_000, seed: 1), snr: snr, sampleRate: 16_000, seed: 7)
        #expect(mixed.count == speech.count)
        let added = zip(mixed, speech).map { $0 - $1 }
        let measured = Perturbation.speechLevel(of: speech, sampleRate: 16_000) - Perturbation.level(of: added)
        #expect(abs(measured - snr) < 0.3, "asked for \(snr) dB, got \(measured)")
    }

    @Test func theSameSeedGivesTheSameMixAndAnotherSeedAnother() {
        let noise = whiteNoise(count: 50_000, seed: 3)
        let a = Perturbation.mix(speech: command(), noise: noise, snr: 10, sampleRate: 16_000, seed: 42)
        let b = Perturbation.mix(speech: command(), noise: noise, snr: 10, sampleRate: 16_000, seed: 42)
        let c = Perturbation.mix(speech: command(), noise: noise, snr: 10, sampleRate: 16_000, seed: 43)
        #expect(a == b)
        #expect(a != c)
    }

    @Test func silentNoiseLeavesSpeechAlone() {
        let speech = command()
        #expect(Perturbation.mix(speech: speech, noise: [Float](repeating: 0, count: 100), snr: 6, sampleRate: 16_000, seed: 1) == speech)
    }

    @Test func speedChangesDurationAndPitchTogether() {
        let input = tone(500, rate: 16_000, seconds: 1, amplitude: 0.5)
        let faster = Perturbation.speed(input, by: 1.25, sampleRate: 16_000)
        #expect(abs(faster.count - 12_800) <= 2)
        #expect(toneAmplitude(faster, frequency: 625, rate: 16_000) > 0.45)
        let slower = Perturbation.speed(input, by: 0.8, sampleRate: 16_000)
        #expect(abs(slower.count - 20_000) <= 2)
        #expect(toneAmplitude(slower, frequency: 400, rate: 16_000) > 0.45)
    }

    @Test func gainScalesAndClips() {
        let quieter = Perturbation.gain([0.5, -0.5], decibels: -20)
        #expect(abs(quieter[0] - 0.05) < 1e-6 && abs(quieter[1] + 0.05) < 1e-6)
        #expect(Perturbation.gain([0.5, -0.9], decibels: 12) == [1, -1])
    }
}
