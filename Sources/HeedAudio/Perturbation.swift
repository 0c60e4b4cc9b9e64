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

    /// Mean power (full scale = 1) of the whole signal in dB.
    public static func level(of samples: [Float]) -> Double {
        guard !samples.isEmpty else { return -.infinity }
        let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        return 10 * log10(max(power, 1e-20))
    }

    /// `speech` with `noise` added so that the speech level is `snr` dB above the noise's mean
    /// level. The noise starts at an offset drawn from `seed` (the same seed gives the same mix)
    /// and loops when it is shorter than the speech. Clips at full scale.
    public static func mix(speech: [Float], noise: [Float], snr: Double, sampleRate: Int, seed: UInt64) -> [Float] {
        guard !speech.isEmpty, !noise.isEmpty else { return speech }
        let noiseLevel = level(of: noise)
        guard noiseLevel.isFinite, noiseLevel > -200 else { return speech }
        let target = speechLevel(of: speech, sampleRate: sampleRate) - snr
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
