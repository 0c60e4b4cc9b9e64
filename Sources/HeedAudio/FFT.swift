import Foundation

/// An in-place radix-2 complex FFT. A room's response is thousands of taps long: convolving a
/// three-second recording with a 0.6 s room sample by sample is 460 million multiplications,
/// through the FFT about ten million. Sizes are powers of two.
struct FFT {
    let size: Int
    private let cosines: [Double]
    private let sines: [Double]
    private let reversed: [Int]

    init(size: Int) {
        precondition(size > 0 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        let half = max(1, size / 2)
        cosines = (0..<half).map { cos(-2 * Double.pi * Double($0) / Double(size)) }
        sines = (0..<half).map { sin(-2 * Double.pi * Double($0) / Double(size)) }
        let bits = size.trailingZeroBitCount
        reversed = (0..<size).map { index in
            var result = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { result |= 1 << (bits - 1 - bit) }
            return result
        }
    }

    /// The smallest power of two at least `count`.
    static func size(atLeast count: Int) -> Int {
        var size = 1
        while size < count { size <<= 1 }
        return size
    }

    /// The discrete Fourier transform of (`real`, `imaginary`) in place; `inverse` runs the
    /// inverse transform, scaled by 1/size so that a forward and an inverse round-trip.
    func transform(_ real: inout [Double], _ imaginary: inout [Double], inverse: Bool = false) {
        precondition(real.count == size && imaginary.count == size)
        for index in 0..<size where index < reversed[index] {
            real.swapAt(index, reversed[index])
            imaginary.swapAt(index, reversed[index])
        }
        let sign: Double = inverse ? -1 : 1
        var length = 2
        while length <= size {
            let step = size / length
            for start in stride(from: 0, to: size, by: length) {
                for offset in 0..<length / 2 {
                    let c = cosines[offset * step], s = sign * sines[offset * step]
                    let even = start + offset, odd = even + length / 2
                    let oddReal = real[odd] * c - imaginary[odd] * s
                    let oddImaginary = real[odd] * s + imaginary[odd] * c
                    real[odd] = real[even] - oddReal
                    imaginary[odd] = imaginary[even] - oddImaginary
                    real[even] += oddReal
                    imaginary[even] += oddImaginary
                }
            }
            length <<= 1
        }
        if inverse {
            let scale = 1 / Double(size)
            for index in 0..<size {
                real[index] *= scale
                imaginary[index] *= scale
            }
        }
    }

    /// The linear convolution of `signal` with `kernel` (`signal.count + kernel.count - 1`
    /// samples).
    static func convolve(_ signal: [Float], _ kernel: [Float]) -> [Float] {
        guard !signal.isEmpty, !kernel.isEmpty else { return [] }
        let count = signal.count + kernel.count - 1
        let fft = FFT(size: size(atLeast: count))
        var aReal = signal.map(Double.init) + [Double](repeating: 0, count: fft.size - signal.count)
        var aImaginary = [Double](repeating: 0, count: fft.size)
        var bReal = kernel.map(Double.init) + [Double](repeating: 0, count: fft.size - kernel.count)
        var bImaginary = [Double](repeating: 0, count: fft.size)
        fft.transform(&aReal, &aImaginary)
        fft.transform(&bReal, &bImaginary)
        for index in 0..<fft.size {
            let real = aReal[index] * bReal[index] - aImaginary[index] * bImaginary[index]
            aImaginary[index] = aReal[index] * bImaginary[index] + aImaginary[index] * bReal[index]
            aReal[index] = real
        }
        fft.transform(&aReal, &aImaginary, inverse: true)
        return aReal.prefix(count).map { Float($0) }
    }
}
