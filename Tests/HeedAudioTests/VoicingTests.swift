import Foundation
import HeedTestSupport
import Testing
@testable import HeedAudio

/// Voicing: a vowel is periodic at a speaking pitch; clatter and hiss are not.
@Suite struct VoicingTests {
    /// A glottal-pulse-like vowel: harmonics of `pitch` up to 3 kHz, falling off 6 dB per octave.
    func vowel(pitch: Double, seconds: Double, rate: Int = 16_000) -> [Int16] {
        PCM.int16(from: (0..<Int(Double(rate) * seconds)).map { n in
            var value = 0.0
            var harmonic = 1.0
            while harmonic * pitch < 3_000 {
                value += sin(2 * Double.pi * harmonic * pitch * Double(n) / Double(rate)) / harmonic
                harmonic += 1
            }
            return Float(0.2 * value)
        })
    }

    /// White noise band-passed around `center` (an RBJ biquad), like a clatter burst.
    func bandPassedNoise(center: Double, seconds: Double, seed: UInt64, rate: Int = 16_000) -> [Int16] {
        var generator = SplitMix64(seed: seed)
        let w = 2 * Double.pi * center / Double(rate), alpha = sin(w) / (2 * 2.0)
        let b0 = alpha, b2 = -alpha, a0 = 1 + alpha, a1 = -2 * cos(w), a2 = 1 - alpha
        var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
        return PCM.int16(from: (0..<Int(Double(rate) * seconds)).map { _ in
            let x = Double.random(in: -1...1, using: &generator)
            let y = (b0 * x + b2 * x2 - a1 * y1 - a2 * y2) / a0
            (x2, x1, y2, y1) = (x1, x, y1, y)
            return Float(0.5 * y)
        })
    }

    @Test(arguments: [85.0, 120, 210, 350]) func aVowelIsVoicedThroughout(pitch: Double) {
        let voiced = Voicing.voicedDuration(in: vowel(pitch: pitch, seconds: 0.5), sampleRate: 16_000)
        // Every 10 ms frame whose window and longest lag fit in the half second: 44 of them.
        #expect(voiced >= 0.40, "\(voiced) s voiced of 0.5 s at \(pitch) Hz")
    }

    @Test(arguments: [1_500.0, 2_500, 4_000]) func clatterIsNotVoiced(center: Double) {
        let burst = bandPassedNoise(center: center, seconds: 0.25, seed: UInt64(center))
        #expect(Voicing.voicedDuration(in: burst, sampleRate: 16_000) <= 0.02)
    }

    @Test func hissIsNotVoicedAndSilenceHasNothing() {
        var generator = SplitMix64(seed: 9)
        let hiss = PCM.int16(from: (0..<8_000).map { _ in Float.random(in: -0.3...0.3, using: &generator) })
        #expect(Voicing.voicedDuration(in: hiss, sampleRate: 16_000) == 0)
        #expect(Voicing.voicedDuration(in: [Int16](repeating: 0, count: 8_000), sampleRate: 16_000) == 0)
        #expect(Voicing.voicedDuration(in: [Int16](repeating: 0, count: 100), sampleRate: 16_000) == 0)
    }

    /// A vowel after a loud burst still counts, and counting stops at `enough`.
    @Test func findsTheVowelBesideTheBurstAndStopsWhenItHasEnough() {
        let mixed = bandPassedNoise(center: 3_000, seconds: 0.2, seed: 3) + vowel(pitch: 150, seconds: 0.3)
        let all = Voicing.voicedDuration(in: mixed, sampleRate: 16_000)
        #expect(all >= 0.2)
        #expect(Voicing.voicedDuration(in: mixed, sampleRate: 16_000, enough: 0.05) == 0.05)
    }

    /// A burst between two vowels is one long run of loud unvoiced sound; a vowel alone has none,
    /// and a burst far quieter than the vowels does not count.
    @Test func aLoudBurstIsALongUnvoicedRun() {
        let burst = bandPassedNoise(center: 3_000, seconds: 0.3, seed: 5)
        let vowels = vowel(pitch: 150, seconds: 0.3)
        let run = Voicing.longestLoudUnvoicedRun(in: vowels + burst + vowels, sampleRate: 16_000, withinDB: 10)
        #expect(run >= 0.25 && run <= 0.35, "\(run) s")
        #expect(Voicing.longestLoudUnvoicedRun(in: vowels, sampleRate: 16_000, withinDB: 10) == 0)
        let faint = burst.map { $0 / 100 }  // 40 dB down
        // At most the frame whose window straddles the vowel's end.
        #expect(Voicing.longestLoudUnvoicedRun(in: vowels + faint + vowels, sampleRate: 16_000, withinDB: 10) <= 0.01)
    }

    /// The burst's frames, not the vowels': one run where the burst lies (frames 30-60, the vowel
    /// before it 30 frames long), and none when the runs asked for are longer than the burst.
    @Test func theBurstsRunIsWhereTheBurstIs() {
        let burst = bandPassedNoise(center: 3_000, seconds: 0.3, seed: 5)
        let vowels = vowel(pitch: 150, seconds: 0.3)
        let runs = Voicing.loudUnvoicedRuns(in: vowels + burst + vowels, sampleRate: 16_000, withinDB: 10, minimumFrames: 12)
        #expect(runs.count == 1)
        if let run = runs.first {
            #expect(abs(run.lowerBound - 30) <= 3 && abs(run.upperBound - 60) <= 3, "\(run)")
        }
        #expect(Voicing.loudUnvoicedRuns(in: vowels + burst + vowels, sampleRate: 16_000, withinDB: 10, minimumFrames: 40).isEmpty)
        #expect(Voicing.loudUnvoicedRuns(in: vowels, sampleRate: 16_000, withinDB: 10).isEmpty)
    }

    /// Real voices: the demo's synthesized commands and, when the corpus is there, people reading.
    @Test func recordedSpeechIsVoiced() throws {
        var recordings = Fixtures.wavs(in: Fixtures.demo)
        if Fixtures.corpusAvailable {
            recordings += ["cards/001.wav", "cards/002.wav", "cards/003.wav"].map { Fixtures.corpus.appendingPathComponent($0) }
        }
        #expect(!recordings.isEmpty)
        for url in recordings {
            let wav = try WAVFile(contentsOf: url)
            let samples = PCM.int16(from: Resampler.convert(wav.samples, from: wav.format.sampleRate, to: 16_000))
            #expect(Voicing.voicedDuration(in: samples, sampleRate: 16_000) >= 0.1, "\(url.lastPathComponent)")
        }
    }
}
