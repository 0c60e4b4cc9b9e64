import Foundation

/// Changes made to a clean recording to test how recognition holds up: noise at a chosen
/// signal-to-noise ratio, a reverberant room, faster or slower speech, a quieter or louder
/// microphone.
public enum Perturbation {
    /// Speech level in dB (full scale = 0), measured on the loudest quarter of 20 ms frames so
    /// that the pauses around a short command do not count as speech.
    public static func speechLevel(of samples: [Float], sampleRate: Int) -> Double {
        let powers = framePowers(samples, frameLength: max(1, sampleRate / 50)).sorted(by: >)
        guard !powers.isEmpty else { return -.infinity }
        let loudest = powers.prefix(max(1, powers.count / 4))
        return 10 * log10(max(loudest.reduce(0, +) / Double(loudest.count), 1e-20))
    }

    /// How the speech level that `mix` sets the noise against is measured.
    public enum SpeechLevel: String, Sendable, CaseIterable {
        /// The loudest quarter of 20 ms frames (`speechLevel(of:sampleRate:)`). Near the active
        /// level for a short command, which fills about a quarter of its file; for a phrase that
        /// fills most of it, only its loudest syllables count, and the level comes out 2.5-4.5 dB
        /// above the active level (Audio/coffee, home, workshop: median 3.3 dB).
        case loudestQuarter = "loudest-quarter"
        /// ITU-T P.56's active speech level (`activeSpeechLevel(of:sampleRate:)`), which
        /// Aurora-2 and most noisy-speech benchmarks mix against: the same SNR means the same
        /// thing for one word and for a sentence.
        case active

        public func of(_ samples: [Float], sampleRate: Int) -> Double {
            switch self {
            case .loudestQuarter: return Perturbation.speechLevel(of: samples, sampleRate: sampleRate)
            case .active: return Perturbation.activeSpeechLevel(of: samples, sampleRate: sampleRate)
            }
        }
    }

    /// Active speech level in dB (full scale = 0), by ITU-T P.56 method B: the power over the
    /// samples where the speech's envelope (smoothed over 30 ms, with 200 ms of hangover) is
    /// above a threshold, the threshold being chosen 15.9 dB below the level it yields. Pauses
    /// do not count however long they are; the quiet syllables of a sentence do.
    public static func activeSpeechLevel(of samples: [Float], sampleRate: Int) -> Double {
        // Thresholds a factor of 2 apart, from one 16-bit step to half of full scale, as P.56's
        // reference implementation (ITU-T G.191, sv56) uses.
        let thresholds = (0..<15).map { pow(2.0, Double($0 - 15)) }
        let smoothing = exp(-1 / (0.03 * Double(sampleRate)))
        let hangover = Int(0.2 * Double(sampleRate))
        var active = [Int](repeating: 0, count: thresholds.count)
        var sinceAbove = [Int](repeating: hangover, count: thresholds.count)
        var energy = 0.0, envelope = 0.0, smoothed = 0.0
        for sample in samples {
            let x = Double(sample)
            energy += x * x
            envelope = smoothing * envelope + (1 - smoothing) * abs(x)
            smoothed = smoothing * smoothed + (1 - smoothing) * envelope
            for index in thresholds.indices {
                if smoothed >= thresholds[index] {
                    active[index] += 1
                    sinceAbove[index] = 0
                } else if sinceAbove[index] < hangover {
                    active[index] += 1
                    sinceAbove[index] += 1
                }
            }
        }
        // The level over each threshold's active samples falls towards the threshold as it
        // rises; the active level is where the two are 15.9 dB apart (interpolated in dB).
        let margin = 15.9
        var previous: (level: Double, gap: Double)?
        for index in thresholds.indices where active[index] > 0 {
            let level = 10 * log10(energy / Double(active[index]))
            let gap = level - 20 * log10(thresholds[index])
            if gap <= margin {
                guard let previous else { return level }
                return previous.level + (previous.gap - margin) / (previous.gap - gap) * (level - previous.level)
            }
            previous = (level, gap)
        }
        return previous?.level ?? -.infinity
    }

    /// Mean power (full scale = 1) of the whole signal in dB.
    public static func level(of samples: [Float]) -> Double {
        guard !samples.isEmpty else { return -.infinity }
        let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        return 10 * log10(max(power, 1e-20))
    }

    /// `speech` with `noise` added so that the speech level (measured `against`) is `snr` dB
    /// above the noise's mean level. The noise starts at an offset drawn from `seed` (the same
    /// seed gives the same mix) and loops when it is shorter than the speech. Clips at full scale.
    public static func mix(speech: [Float], noise: [Float], snr: Double, sampleRate: Int, seed: UInt64,
                           against speechLevel: SpeechLevel = .loudestQuarter) -> [Float] {
        guard !speech.isEmpty, !noise.isEmpty else { return speech }
        let noiseLevel = level(of: noise)
        guard noiseLevel.isFinite, noiseLevel > -200 else { return speech }
        let target = speechLevel.of(speech, sampleRate: sampleRate) - snr
        let scale = Float(pow(10, (target - noiseLevel) / 20))
        var generator = SplitMix64(seed: seed)
        var position = Int(generator.next() % UInt64(noise.count))
        var mixed = speech
        for index in mixed.indices {
            mixed[index] = max(-1, min(1, mixed[index] + scale * noise[position]))
            position += 1
            if position == noise.count { position = 0 }
        }
        return mixed
    }

    /// Speech played `factor` times faster (pitch rises with it, as with `sox speed`).
    public static func speed(_ samples: [Float], by factor: Double, sampleRate: Int) -> [Float] {
        precondition(factor > 0, "speed factor must be positive")
        // Whole hertz keep the resampling ratio rational and exact.
        let pretendRate = Int((Double(sampleRate) * factor).rounded())
        return Resampler.convert(samples, from: pretendRate, to: sampleRate)
    }

    /// Samples scaled by `decibels`, clipped at full scale.
    public static func gain(_ samples: [Float], decibels: Double) -> [Float] {
        let scale = Float(pow(10, decibels / 20))
        return samples.map { max(-1, min(1, $0 * scale)) }
    }

    /// How much louder the direct sound is than the room's reverberation, in dB: 0 is a talker at
    /// the room's critical distance, about a metre from the device in a furnished living room or
    /// kitchen. Further away the reverberation dominates.
    public static let directToReverberantDB = 0.0
    /// When the first reflections arrive after the direct sound.
    static let reflectionDelaySeconds = 0.004

    /// A synthetic room impulse response: the direct sound, then from
    /// `reflectionDelaySeconds` a diffuse tail of random reflections whose level falls 60 dB in
    /// `rt60` seconds, carrying `directToReverberantDB` less energy than the direct sound. The
    /// same seed gives the same room.
    public static func roomResponse(rt60: Double, sampleRate: Int, seed: UInt64) -> [Float] {
        precondition(rt60 > 0, "reverberation time must be positive")
        let length = max(2, Int(rt60 * Double(sampleRate)))
        let first = min(length - 1, Int(reflectionDelaySeconds * Double(sampleRate)))
        var generator = SplitMix64(seed: seed)
        var response = [Float](repeating: 0, count: length)
        response[0] = 1
        // Amplitude falls by 60 dB (a factor of 1000) over rt60: exp(-ln(1000) t / rt60).
        let decay = log(1000) / (rt60 * Double(sampleRate))
        var energy = 0.0
        for index in first..<length {
            let value = Double.random(in: -1...1, using: &generator) * exp(-decay * Double(index))
            response[index] = Float(value)
            energy += value * value
        }
        let scale = Float((pow(10, -directToReverberantDB / 10) / max(energy, 1e-20)).squareRoot())
        for index in first..<length { response[index] *= scale }
        return response
    }

    /// `samples` as heard in a room whose reverberation time is `rt60` seconds
    /// (`roomResponse`), at the same speech level, with the room's echo after the last sound
    /// kept. Clips at full scale.
    public static func reverberate(_ samples: [Float], rt60: Double, sampleRate: Int, seed: UInt64) -> [Float] {
        guard !samples.isEmpty else { return samples }
        let heard = FFT.convolve(samples, roomResponse(rt60: rt60, sampleRate: sampleRate, seed: seed))
        let change = speechLevel(of: samples, sampleRate: sampleRate) - speechLevel(of: heard, sampleRate: sampleRate)
        guard change.isFinite else { return heard }
        let scale = Float(pow(10, change / 20))
        return heard.map { max(-1, min(1, $0 * scale)) }
    }

    private static func framePowers(_ samples: [Float], frameLength: Int) -> [Double] {
        stride(from: 0, to: samples.count - frameLength + 1, by: frameLength).map { start in
            samples[start..<start + frameLength].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frameLength)
        }
    }
}

/// A small, fast, seedable generator (Steele et al.'s SplitMix64), so noise offsets are
/// reproducible across runs and platforms.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
