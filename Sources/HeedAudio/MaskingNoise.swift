import Foundation

/// A floor of noise laid under denoised audio before it is decoded.
///
/// A noise suppressor leaves a quiet residue in what should be silence: the harmonics of mains
/// hum, fragments of background voices. To the acoustic model a tonal residue 30-40 dB down
/// sounds like a voiced "m" and is decoded as a word ("~m stop am", "done got done"), which
/// turns a command into a non-command. A floor of noise just above that residue masks it, so the
/// pauses sound like the noise the model calls silence. The floor is low-passed like the residues
/// it masks (they sit below about 1 kHz), which leaves the fricatives above it alone. The
/// generator is seeded the same way for every call: the same audio always decodes the same.
public enum MaskingNoise {
    /// Where the floor's spectrum starts to fall, 6 dB per octave above.
    public static let cornerFrequency = 800.0

    /// `samples` with Gaussian noise of RMS `level` (in sample units), low-passed at
    /// `cornerFrequency`, added and clipped to 16 bits.
    public static func added<Samples: Collection<Int16>>(to samples: Samples, level: Double, sampleRate: Int = 16_000) -> [Int16] {
        var generator = SplitMix64(seed: 0x4845_4544)  // "HEED"
        // One-pole low-pass y += (1 - a)(x - y); for white x of variance 1, y has variance (1 - a)/(1 + a).
        let a = exp(-2 * Double.pi * cornerFrequency / Double(sampleRate))
        // The sum of four uniform draws on [-0.5, 0.5) is near enough Gaussian, with variance 1/3.
        let scale = level * (3 * (1 + a) / (1 - a)).squareRoot()
        var lowPassed = 0.0
        return samples.map { sample in
            var white = 0.0
            for _ in 0..<4 { white += Double(generator.next() >> 11) / Double(UInt64(1) << 53) - 0.5 }
            lowPassed = a * lowPassed + (1 - a) * white
            let value = (Double(sample) + lowPassed * scale).rounded()
            return Int16(max(-32768, min(32767, value)))
        }
    }

    /// RMS, in sample units, of a level given in dB of mean power (the scale of 10 ms frame levels,
    /// on which full scale is about 90 dB).
    public static func rms(ofLevelDB level: Double) -> Double {
        pow(10, level / 20)
    }
}
