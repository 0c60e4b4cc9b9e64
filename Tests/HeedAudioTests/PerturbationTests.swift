import Foundation
import Testing
@testable import HeedAudio

/// Noise mixing, reverberation, speed and gain used by `heed test` sweeps.
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

    /// A "phrase": four syllables of tone at different loudness, 40 ms apart, between two
    /// stretches of near silence `pause` seconds long.
    func phrase(pause: Double) -> [Float] {
        let quiet = [Float](repeating: 0.0001, count: Int(pause * 16_000)), gap = [Float](repeating: 0.0001, count: 640)
        let syllables = [0.4, 0.2, 0.3, 0.1].map { tone(500, rate: 16_000, seconds: 0.25, amplitude: Float($0)) }
        return quiet + syllables.joined(separator: gap) + quiet
    }

    @Test func activeLevelOfASteadySignalIsItsPower() {
        let level = Perturbation.activeSpeechLevel(of: tone(700, rate: 16_000, seconds: 2, amplitude: 0.3), sampleRate: 16_000)
        #expect(abs(level - 10 * log10(0.09 / 2)) < 0.2, "\(level)")
        #expect(Perturbation.activeSpeechLevel(of: [Float](repeating: 0, count: 16_000), sampleRate: 16_000) == -.infinity)
    }

    @Test func activeLevelCountsEverySyllableAndNoPause() {
        // The syllables' mean power: (0.4² + 0.2² + 0.3² + 0.1²) / 2 / 4.
        let syllables = 10 * log10((0.16 + 0.04 + 0.09 + 0.01) / 8)
        let short = phrase(pause: 0.5), long = phrase(pause: 3)
        let active = Perturbation.activeSpeechLevel(of: short, sampleRate: 16_000)
        // P.56's 200 ms hangover counts a little of the pause after the phrase, and the gaps count.
        #expect(active < syllables && active > syllables - 1.5, "\(active) against \(syllables)")
        #expect(abs(Perturbation.activeSpeechLevel(of: long, sampleRate: 16_000) - active) < 0.05)
        // The loudest quarter takes only the loud syllables of a short file, and pauses in a long one.
        let quarterShort = Perturbation.speechLevel(of: short, sampleRate: 16_000)
        let quarterLong = Perturbation.speechLevel(of: long, sampleRate: 16_000)
        #expect(quarterShort > active + 1.5, "\(quarterShort) against \(active)")
        #expect(quarterLong < quarterShort - 2, "\(quarterLong) against \(quarterShort)")
    }

    @Test(arguments: [24.0, 12.0, 6.0, 0.0], Perturbation.SpeechLevel.allCases)
    func mixesAtTheRequestedSNR(snr: Double, against level: Perturbation.SpeechLevel) {
        let speech = phrase(pause: 0.5)
        let mixed = Perturbation.mix(speech: speech, noise: whiteNoise(count: 5_000, seed: 1), snr: snr, sampleRate: 16_000, seed: 7,
                                     against: level)
        #expect(mixed.count == speech.count)
        let added = zip(mixed, speech).map { $0 - $1 }
        let measured = level.of(speech, sampleRate: 16_000) - Perturbation.level(of: added)
        #expect(abs(measured - snr) < 0.3, "asked for \(snr) dB, got \(measured)")
    }

    @Test func theSameSNRPutsLessNoiseUnderAPhraseAgainstItsActiveLevel() {
        let speech = phrase(pause: 0.5), noise = whiteNoise(count: 5_000, seed: 1)
        func noiseLevel(_ level: Perturbation.SpeechLevel) -> Double {
            let mixed = Perturbation.mix(speech: speech, noise: noise, snr: 10, sampleRate: 16_000, seed: 7, against: level)
            return Perturbation.level(of: zip(mixed, speech).map { $0 - $1 })
        }
        #expect(noiseLevel(.active) < noiseLevel(.loudestQuarter) - 1.5)
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

    @Test func convolutionThroughTheFFTIsTheDirectSum() {
        var generator = SplitMix64(seed: 5)
        let signal = (0..<300).map { _ in Float.random(in: -1...1, using: &generator) }
        let kernel = (0..<77).map { _ in Float.random(in: -1...1, using: &generator) }
        let fast = FFT.convolve(signal, kernel)
        #expect(fast.count == signal.count + kernel.count - 1)
        for index in fast.indices {
            var sum: Float = 0
            for tap in kernel.indices where index - tap >= 0 && index - tap < signal.count { sum += kernel[tap] * signal[index - tap] }
            #expect(abs(fast[index] - sum) < 1e-4, "sample \(index)")
        }
    }

    /// The room's echo dies away 60 dB over its reverberation time and carries as much energy
    /// as the direct sound.
    @Test(arguments: [0.3, 0.9])
    func aRoomResponseDecaysAtItsReverberationTime(rt60: Double) {
        let response = Perturbation.roomResponse(rt60: rt60, sampleRate: 16_000, seed: 9)
        #expect(response.count == Int(rt60 * 16_000) && response[0] == 1)
        let tail = response.dropFirst()
        let energy = tail.reduce(0.0) { $0 + Double($1) * Double($1) }
        #expect(abs(10 * log10(energy)) < 0.01)
        // Mean power of the tail's second and last tenths: 8 tenths of rt60 apart, so 48 dB.
        let tenth = response.count / 10
        func power(_ part: Int) -> Double {
            response[(part * tenth)..<((part + 1) * tenth)].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(tenth)
        }
        let fall = 10 * log10(power(1) / power(9))
        #expect(abs(fall - 48) < 3, "fell \(fall) dB")
        #expect(Perturbation.roomResponse(rt60: rt60, sampleRate: 16_000, seed: 9) == response)
        #expect(Perturbation.roomResponse(rt60: rt60, sampleRate: 16_000, seed: 10) != response)
    }

    /// Reverberation keeps the speech level and adds the room's echo after the last sound.
    @Test func reverberationKeepsTheSpeechLevelAndAddsTheEcho() {
        let speech = command()
        let heard = Perturbation.reverberate(speech, rt60: 0.6, sampleRate: 16_000, seed: 3)
        #expect(heard.count == speech.count + 9_600 - 1)
        let before = Perturbation.speechLevel(of: speech, sampleRate: 16_000)
        #expect(abs(Perturbation.speechLevel(of: heard, sampleRate: 16_000) - before) < 0.1)
        // The tone stops at 1 s; 0.1 s later the room still rings (at 0.6 s it falls 10 dB a
        // tenth of a second), where the dry recording is 80 dB down.
        let after = heard[17_600..<17_920].reduce(0.0) { $0 + Double($1) * Double($1) } / 320
        #expect(10 * log10(after) > before - 20, "\(10 * log10(after)) against \(before)")
        #expect(Perturbation.reverberate(speech, rt60: 0.6, sampleRate: 16_000, seed: 3) == heard)
    }
}
