import Foundation
import HeedTestSupport
import Testing
@testable import HeedAudio

/// Mains hum subtracted: what repeats at the mains period goes, everything else stays as it was.
@Suite struct MainsHumCancellerTests {
    /// Energy of `samples` in dB (full scale 0 dB).
    static func level(_ samples: some Collection<Int16>) -> Double {
        let energy = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        return 10 * log10(max(energy, 1e-9) / (32768 * 32768))
    }

    /// `samples` fed as a capture thread delivers them, in blocks of 160 (10 ms).
    static func cancelled(_ samples: some Collection<Int16>, sampleRate: Int = 16_000) -> [Int16] {
        var canceller = MainsHumCanceller(sampleRate: sampleRate)
        let samples = Array(samples)
        return stride(from: 0, to: samples.count, by: 160).flatMap {
            canceller.process(Array(samples[$0..<min($0 + 160, samples.count)]))
        }
    }

    /// The suites' hum alone (Audio/noise/hum.wav, 50 Hz and harmonics): from half a second on,
    /// at least 25 dB of it is gone.
    @Test func theSuitesHumIsTakenOutWithinHalfASecond() throws {
        let hum = try RoomNoise.samples("hum")
        let output = Self.cancelled(hum)
        let before = Self.level(hum.dropFirst(8000)), after = Self.level(output.dropFirst(8000))
        #expect(before - after >= 25, "hum \(before) dB, after \(after) dB")
    }

    /// American mains: 60 Hz with odd harmonics (which 50 Hz's harmonics mostly miss), reduced as much.
    @Test func sixtyHertzHumIsTakenOutToo() {
        let hum = (0..<48_000).map { i -> Int16 in
            let t = Double(i) / 16_000
            let tone = [(60.0, 3000.0), (180, 1500), (300, 800), (420, 500)].reduce(0.0) { $0 + $1.1 * sin(2 * .pi * $1.0 * t + $1.0) }
            return Int16(tone)
        }
        let output = Self.cancelled(hum)
        let before = Self.level(hum.dropFirst(8000)), after = Self.level(output.dropFirst(8000))
        #expect(before - after >= 25, "hum \(before) dB, after \(after) dB")
    }

    /// A command over the suites' hum at 6 dB: once the fit has settled, what is left differs
    /// from the clean recording by at least 20 dB less than the hum did, so the voice's own
    /// energy at the hum's frequencies (its harmonics cross them) stays.
    @Test func speechOverHumComesBackAsItWas() throws {
        let wav = try WAVFile(contentsOf: Fixtures.builtins.appendingPathComponent("stop-en-130.wav"))
        let speech = PCM.int16(from: Resampler.convert(wav.samples, from: wav.format.sampleRate, to: 16_000))
        let hum = try RoomNoise.samples("hum", seconds: 10)
        // One second of hum before the speech, as a room has before anyone speaks.
        let clean = [Int16](repeating: 0, count: 16_000) + speech
        let gain = pow(10, (Self.level(speech) - Self.level(hum) - 6) / 20)
        let mixed = clean.indices.map { Int16(clamping: Int(clean[$0]) + Int((Double(hum[$0]) * gain).rounded())) }
        let output = Self.cancelled(mixed)
        let humLeft = zip(output, clean).dropFirst(16_000).map { Int16(clamping: Int($0) - Int($1)) }
        let humThere = zip(mixed, clean).dropFirst(16_000).map { Int16(clamping: Int($0) - Int($1)) }
        #expect(Self.level(humThere) - Self.level(humLeft) >= 20, "hum \(Self.level(humThere)) dB, left \(Self.level(humLeft)) dB")
    }

    /// A microphone delivers periods of any size: the output is the same, sample for sample,
    /// however the stream is cut (here the suites' hum under a command, in odd-sized pieces).
    @Test func howTheStreamIsCutDoesNotChangeTheOutput() throws {
        let wav = try WAVFile(contentsOf: Fixtures.builtins.appendingPathComponent("pause-en-130.wav"))
        let speech = PCM.int16(from: Resampler.convert(wav.samples, from: wav.format.sampleRate, to: 16_000))
        let hum = try RoomNoise.samples("hum", seconds: 4)
        let mixed = hum.indices.map { Int16(clamping: Int(hum[$0]) / 4 + ($0 >= 16_000 && $0 - 16_000 < speech.count ? Int(speech[$0 - 16_000]) : 0)) }
        var whole = MainsHumCanceller()
        let expected = whole.process(mixed)
        var pieces = MainsHumCanceller()
        var output: [Int16] = []
        var start = 0
        for size in [1, 37, 160, 333, 1000, 7].cycled() {
            guard start < mixed.count else { break }
            let end = min(start + size, mixed.count)
            output += pieces.process(Array(mixed[start..<end]))
            start = end
        }
        #expect(output == expected)
        #expect(Self.level(expected.prefix(16_000).dropFirst(8000)) < Self.level(mixed.prefix(16_000).dropFirst(8000)) - 20)
    }

    /// Without hum nothing is subtracted: a recording, pink noise, brown noise (which lies in
    /// hum's band) and background talk come back sample for sample.
    @Test func audioWithoutHumComesBackUntouched() throws {
        let wav = try WAVFile(contentsOf: Fixtures.builtins.appendingPathComponent("cancel-en-130.wav"))
        let speech = PCM.int16(from: Resampler.convert(wav.samples, from: wav.format.sampleRate, to: 16_000))
        #expect(Self.cancelled(speech) == speech)
        for name in ["pink", "brown", "babble", "clatter"] {
            let noise = Array(try RoomNoise.samples(name, seconds: 10))
            #expect(Self.cancelled(noise) == noise, "\(name)")
        }
    }

    /// Hum that starts after a silence is taken out once it has been heard, and the oscillators
    /// keep their amplitude over a long stream.
    @Test func humThatStartsLaterIsFollowed() throws {
        let hum = try RoomNoise.samples("hum", seconds: 10)
        let input = [Int16](repeating: 0, count: 32_000) + hum
        let output = Self.cancelled(input)
        let before = Self.level(hum.suffix(16_000)), after = Self.level(output.suffix(16_000))
        #expect(before - after >= 25, "hum \(before) dB, after \(after) dB")
    }
}

private extension Array {
    /// The elements over and over.
    func cycled() -> UnfoldSequence<Element, Int> {
        sequence(state: 0) { index in
            defer { index = (index + 1) % count }
            return self[index]
        }
    }
}

extension MainsHumCancellerTests {
    /// The grid is never at exactly 50 or 60 Hz. Hum off by as much as it drifts, and more: its
    /// frequency is found within a few seconds, and then it is taken out as well as at 50 Hz.
    @Test(arguments: [50.02, 50.05, 50.2, 49.9, 59.95, 60.1])
    func humOffItsNominalFrequencyIsFollowed(fundamental: Double) {
        let hum = (0..<160_000).map { i -> Int16 in
            let t = Double(i) / 16_000
            let harmonics = [(1.0, 3000.0), (2, 1000), (3, 1500), (5, 800), (7, 500), (9, 300), (15, 200)]
            return Int16(harmonics.reduce(0.0) { $0 + $1.1 * sin(2 * .pi * $1.0 * fundamental * t + $1.0) })
        }
        var canceller = MainsHumCanceller()
        let output = stride(from: 0, to: hum.count, by: 160).flatMap { canceller.process(Array(hum[$0..<$0 + 160])) }
        let before = Self.level(hum.suffix(80_000)), after = Self.level(output.suffix(80_000))
        #expect(before - after >= 30, "\(fundamental) Hz: hum \(before) dB, after \(after) dB")
        let tracked = canceller.fundamentals[fundamental < 55 ? 0 : 1]
        #expect(abs(tracked - fundamental) < 0.005, "\(fundamental) Hz tracked as \(tracked)")
    }
}
