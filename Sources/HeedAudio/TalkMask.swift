import Foundation

/// A learned mask that keeps the voice in front and turns down background talk.
///
/// Steady noise is the suppressor's job; background voices are not steady, and no level or pitch
/// rule told the talker's time-frequency bins from theirs (BENCHMARKS.md, "A learned mask for
/// background talk"). A small network does: from 7 frames (±30 ms) of log spectrum it gives each
/// of a 32 ms frame's 257 bins the chance that the voice in front outweighs the rest there, and
/// each bin is kept at `floor + (1 - floor) × chance` of its level. Trained by
/// `scripts/talk-mask.py` on espeak-ng voices over six-voice babble (neither the suites' voices
/// nor their babble), weights in `Models/talk-mask.weights`. About 0.6 M multiply-adds per 10 ms.
///
/// The same network, trained by `scripts/steady-mask.py` on steady noises instead, is the steady
/// noise mask (`Models/steady-mask.weights`): it also sees each bin's noise floor, the
/// utterance's quietest tenth of frames there (`noiseFloorInput`).
public final class TalkMask: Sendable {
    /// Samples per analysis frame, samples between frames, and frames either side the network sees.
    public let frameLength: Int, hop: Int, context: Int
    let bins: Int, hidden: Int
    /// Whether the network's input ends with each bin's noise floor (a HEEDTMK2 file).
    let noiseFloorInput: Bool
    let url: URL
    /// The analysis and synthesis window: a periodic Hann window, as the script's.
    let window: [Double]
    /// The overlap-add's window sum at each sample that is kept, by its phase in the hop: it
    /// depends only on where the sample falls between two frame starts, since every frame over a
    /// kept sample exists (the padding is a whole frame either side). Summed in the order frames
    /// are added, so each is the very number a signal-long sum would give, without holding one
    /// (memory: 8 bytes a sample).
    let windowSums: [Double]
    let fft: FFT

    /// The layers after the first, row-major (inputs × outputs), and every layer's biases. The
    /// first layer's weights (W1, four fifths of the file) are never held whole: `speechChances`
    /// adds them in as `firstLayerRows` reads them.
    struct Network {
        let b1: [Float], w2: [Float], b2: [Float], w3: [Float], b3: [Float]
    }

    /// Why a weights file could not be used.
    public struct LoadError: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let problem: String
        public var description: String { "\(path): \(problem)" }
    }

    static let magic = Array("HEEDTMK1".utf8)
    /// Version 2 adds a sixth field: 1 when the input ends with the noise floor.
    static let magicWithNoiseFloor = Array("HEEDTMK2".utf8)

    /// Checks a weights file written by `scripts/talk-mask.py export` (or `steady-mask.py`'s): its header, and that it
    /// holds exactly the weights the header's sizes call for. The weights are read when used.
    public init(contentsOf url: URL) throws(LoadError) {
        func fail(_ problem: String) -> LoadError { LoadError(path: url.path, problem: problem) }
        let header: [UInt8], size: Int
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            header = [UInt8](try handle.read(upToCount: 32) ?? Data())
            size = Int(try handle.seekToEnd())
        } catch {
            throw fail("cannot read the talk mask's weights: \((error as NSError).localizedDescription)")
        }
        let magic = Array(header.prefix(8))
        guard magic == Self.magic || magic == Self.magicWithNoiseFloor else {
            throw fail("not a talk mask weights file (no HEEDTMK1 or HEEDTMK2 header)")
        }
        let fieldCount = magic == Self.magic ? 5 : 6
        guard header.count >= 8 + 4 * fieldCount else { throw fail("the header is cut short (truncated?)") }
        let fields = (0..<fieldCount).map { index in (0..<4).reduce(0) { $0 | Int(header[8 + index * 4 + $1]) << (8 * $1) } }
        let (frame, hop, context, hidden, bins) = (fields[0], fields[1], fields[2], fields[3], fields[4])
        let floorField = fieldCount == 6 ? fields[5] : 0
        guard frame > 0, frame & (frame - 1) == 0, frame <= 4096, bins == frame / 2 + 1, hop > 0, hop <= frame,
              (0...10).contains(context), (1...4096).contains(hidden), (0...1).contains(floorField) else {
            throw fail("unusable sizes: frame \(frame), hop \(hop), context \(context), hidden \(hidden), bins \(bins)")
        }
        (frameLength, self.hop, self.context, self.hidden, self.bins, self.url) = (frame, hop, context, hidden, bins, url)
        (noiseFloorInput, headerLength) = (floorField == 1, 8 + 4 * fieldCount)
        let inputs = (2 * context + 1 + floorField) * bins
        let expected = headerLength + 4 * Self.layerSizes(inputs: inputs, bins: bins, hidden: hidden).reduce(0, +)
        guard size == expected else { throw fail("\(size) bytes where the header's sizes need \(expected) (truncated?)") }
        let window = (0..<frame).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(frame)) }
        self.window = window
        // Frames in order are offsets into the window from the largest down.
        windowSums = (0..<hop).map { phase in
            stride(from: phase + (frame - 1 - phase) / hop * hop, through: phase, by: -hop).reduce(0.0) { $0 + window[$1] * window[$1] }
        }
        fft = FFT(size: frame)
    }

    /// Bytes before the weights.
    let headerLength: Int
    /// Numbers in one frame's input: its log spectrum and its neighbours', then the noise floor.
    var inputs: Int { (2 * context + 1 + (noiseFloorInput ? 1 : 0)) * bins }

    /// How many numbers each of W1, b1, W2, b2, W3, b3 holds.
    private static func layerSizes(inputs: Int, bins: Int, hidden: Int) -> [Int] {
        [inputs * hidden, hidden, hidden * hidden, hidden, hidden * bins, bins]
    }

    /// The network, read from `url` each time it is needed and not kept: most audio never
    /// reaches a mask, and a run that meets both steady noise and background talk would
    /// otherwise hold both networks (2.6 and 2.4 MB) from then on, past issue 8's 60 MB. Reading
    /// costs about 1 ms, against hundreds for the masked copies' decodes (BENCHMARKS.md,
    /// "Memory in noise and with shortcuts"). The first layer's weights are not read here but
    /// streamed past by `firstLayerRows`.
    func network() throws(LoadError) -> Network {
        let sizes = Self.layerSizes(inputs: inputs, bins: bins, hidden: hidden)
        return try withWeights(from: headerLength + 4 * sizes[0]) { reader in
            Network(b1: try reader.array(sizes[1]), w2: try reader.array(sizes[2]), b2: try reader.array(sizes[3]),
                    w3: try reader.array(sizes[4]), b3: try reader.array(sizes[5]))
        }
    }

    /// Calls `body` with the first layer's weights (W1) a few rows at a time, in order, and the
    /// number of the first row each time. The masks run while the search's lexicon trees and
    /// history are held, which is a noisy run's peak of memory, so W1 (2.1 MB, four fifths of
    /// the file) is never held whole (BENCHMARKS.md, "The masks' first layer streamed").
    func firstLayerRows(_ body: (_ firstRow: Int, _ rows: [Float]) -> Void) throws(LoadError) {
        let rowsPerPiece = 64
        var row = 0
        try withWeights(from: headerLength) { reader in
            try reader.read(inputs * hidden, piece: rowsPerPiece * hidden) { rows in
                body(row, rows)
                row += rows.count / hidden
            }
        }
    }

    /// Reads float32 weights from an open weights file a piece at a time, each piece checked
    /// whole and finite, so no more than one piece is held twice.
    private struct WeightReader {
        let handle: FileHandle
        let fail: (String) -> LoadError

        func read(_ count: Int, piece: Int = 65_536, _ use: ([Float]) -> Void) throws {
            var left = count
            while left > 0 {
                let size = min(piece, left)
                guard let data = try handle.read(upToCount: 4 * size), data.count == 4 * size else {
                    throw fail("the file ended while reading the talk mask's weights (was it changed meanwhile?)")
                }
                let values = data.withUnsafeBytes { bytes in
                    (0..<size).map { Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
                }
                guard values.allSatisfy(\.isFinite) else { throw fail("a weight is not a finite number") }
                use(values)
                left -= size
            }
        }

        func array(_ count: Int) throws -> [Float] {
            var values = [Float]()
            values.reserveCapacity(count)
            try read(count) { values.append(contentsOf: $0) }
            return values
        }
    }

    /// Opens the weights file at byte `offset` for `body`; any failure becomes a `LoadError`.
    private func withWeights<Result>(from offset: Int, _ body: (WeightReader) throws -> Result) throws(LoadError) -> Result {
        func fail(_ problem: String) -> LoadError { LoadError(path: url.path, problem: problem) }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(offset))
            return try body(WeightReader(handle: handle, fail: fail))
        } catch let error as LoadError {
            throw error
        } catch {
            throw fail("cannot read the talk mask's weights: \((error as NSError).localizedDescription)")
        }
    }

    /// `samples` masked once for each of `floors` (the gain, 0...1, where the network hears only
    /// background): the spectrum and the network run once for all of them.
    /// Each call reads the weights (`network()`), and throws if they can no longer be read.
    public func masked(_ samples: ArraySlice<Int16>, floors: [Double]) throws(LoadError) -> [[Int16]] {
        guard !samples.isEmpty else { return floors.map { _ in [] } }
        let spectrum = analyse(samples)
        // The weights go once the chances are known, before the copies are made.
        let chances = try speechChances(spectrum)
        return floors.map { floor in
            synthesise(spectrum, chances: chances, floor: floor, count: samples.count)
        }
    }

    /// A short-time spectrum: `frames` rows of `bins` complex values.
    struct Spectrum {
        // Float: a 3 s utterance's spectrum is then 0.6 MB rather than 1.2.
        var real: [Float], imaginary: [Float]
        let frames: Int, paddedLength: Int
    }

    /// The spectrum of `samples` zero-padded by a frame either side, a frame every `hop` samples.
    func analyse(_ samples: ArraySlice<Int16>) -> Spectrum {
        // Sample `index` of the padded signal, without building it (memory: see BENCHMARKS).
        let paddedLength = samples.count + 2 * frameLength
        func padded(_ index: Int) -> Double {
            let at = index - frameLength
            return at >= 0 && at < samples.count ? Double(samples[samples.startIndex + at]) : 0
        }
        let frames = (paddedLength - frameLength) / hop + 1
        var spectrum = Spectrum(real: .init(repeating: 0, count: frames * bins), imaginary: .init(repeating: 0, count: frames * bins),
                                frames: frames, paddedLength: paddedLength)
        var real = [Double](repeating: 0, count: frameLength), imaginary = real
        for frame in 0..<frames {
            for index in 0..<frameLength {
                real[index] = padded(frame * hop + index) * window[index]
                imaginary[index] = 0
            }
            fft.transform(&real, &imaginary)
            for bin in 0..<bins {
                spectrum.real[frame * bins + bin] = Float(real[bin])
                spectrum.imaginary[frame * bins + bin] = Float(imaginary[bin])
            }
        }
        return spectrum
    }

    /// The weighted overlap-add of `spectrum`, each bin scaled by `floor + (1 - floor) × chance`,
    /// without the padding.
    func synthesise(_ spectrum: Spectrum, chances: [Float], floor: Double, count: Int) -> [Int16] {
        var out = [Double](repeating: 0, count: spectrum.paddedLength)
        var real = [Double](repeating: 0, count: frameLength), imaginary = real
        for frame in 0..<spectrum.frames {
            // The full conjugate-symmetric spectrum of a real frame.
            for bin in 0..<bins {
                let gain = floor + (1 - floor) * Double(chances[frame * bins + bin])
                real[bin] = Double(spectrum.real[frame * bins + bin]) * gain
                imaginary[bin] = Double(spectrum.imaginary[frame * bins + bin]) * gain
            }
            imaginary[0] = 0
            imaginary[bins - 1] = 0
            for bin in bins..<frameLength {
                real[bin] = real[frameLength - bin]
                imaginary[bin] = -imaginary[frameLength - bin]
            }
            fft.transform(&real, &imaginary, inverse: true)
            for index in 0..<frameLength {
                out[frame * hop + index] += real[index] * window[index]
            }
        }
        let weight = windowSums
        return (frameLength..<frameLength + count).map { index in
            Int16(max(-32768, min(32767, (out[index] / max(weight[index % hop], 1e-3)).rounded())))
        }
    }

    /// Each bin's chance that the voice in front outweighs the rest, frame by frame. Reads the
    /// weights (`network()`, `firstLayerRows`).
    func speechChances(_ spectrum: Spectrum) throws(LoadError) -> [Float] {
        let frames = spectrum.frames
        // Log power relative to the loud frames (the 95th percentile of frame means), over 20 dB:
        // the network sees levels relative to the voice, not absolute ones.
        var features = [Float](repeating: 0, count: frames * bins)
        var means = [Double](repeating: 0, count: frames)
        for frame in 0..<frames {
            var sum = 0.0
            for bin in 0..<bins {
                let index = frame * bins + bin
                let real = Double(spectrum.real[index]), imaginary = Double(spectrum.imaginary[index])
                let value = 10 * log10(real * real + imaginary * imaginary + 1)
                features[index] = Float(value)
                sum += value
            }
            means[frame] = sum / Double(bins)
        }
        let reference = Self.percentile(means, 0.95)
        for index in features.indices { features[index] = Float((Double(features[index]) - reference) / 20) }
        let noiseFloor = noiseFloorInput ? (0..<bins).map { bin in
            Float(Self.percentile((0..<frames).map { Double(features[$0 * bins + bin]) }, 0.1))
        } : []
        // The first layer for every frame at once, as W1 streams past a few rows at a time. Each
        // hidden unit's sum still starts from its bias and adds the inputs in order, skipping zeros,
        // so it is the same number `layer` gives.
        let network = try network()
        var hidden1 = [Float](repeating: 0, count: frames * hidden)
        for frame in 0..<frames {
            for unit in 0..<hidden { hidden1[frame * hidden + unit] = network.b1[unit] }
        }
        let windowInputs = (2 * context + 1) * bins
        // A block of frames at a time within each piece of rows, so the block's sums stay in cache.
        let block = 16
        try firstLayerRows { firstRow, rows in
            hidden1.withUnsafeMutableBufferPointer { y in
                rows.withUnsafeBufferPointer { w in
                    for first in stride(from: 0, to: frames, by: block) {
                        for offset in 0..<rows.count / hidden {
                            let input = firstRow + offset
                            let weightRow = w.baseAddress! + offset * hidden
                            // This input of each frame: a bin of a frame in its window (the first and
                            // last frames repeated past the ends), or, past the window, a bin's noise floor.
                            let (shift, bin) = (input / bins - context, input % bins)
                            for frame in first..<min(first + block, frames) {
                                let value = input < windowInputs
                                    ? features[max(0, min(frames - 1, frame + shift)) * bins + bin] : noiseFloor[input - windowInputs]
                                if value == 0 { continue }
                                let out = y.baseAddress! + frame * hidden
                                for unit in 0..<hidden { out[unit] += value * weightRow[unit] }
                            }
                        }
                    }
                }
            }
        }
        for index in hidden1.indices where hidden1[index] < 0 { hidden1[index] = 0 }
        var chances = [Float](repeating: 0, count: frames * bins)
        // The later layers a block of frames at a time, so each row of weights is read once per
        // block rather than once per frame.
        for first in stride(from: 0, to: frames, by: block) {
            let count = min(block, frames - first)
            let input = Array(hidden1[first * hidden..<(first + count) * hidden])
            let hidden2 = Self.layer(input, rows: count, inputs: hidden, weights: network.w2, biases: network.b2, outputs: hidden, relu: true)
            let logits = Self.layer(hidden2, rows: count, inputs: hidden, weights: network.w3, biases: network.b3, outputs: bins, relu: false)
            for (index, logit) in logits.enumerated() {
                chances[first * bins + index] = 1 / (1 + exp(-max(-30, min(30, logit))))
            }
        }
        return chances
    }

    /// `rows` inputs times `weights` plus `biases`, optionally through a ReLU.
    static func layer(_ input: [Float], rows: Int, inputs: Int, weights: [Float], biases: [Float], outputs: Int, relu: Bool) -> [Float] {
        var result = [Float](repeating: 0, count: rows * outputs)
        input.withUnsafeBufferPointer { x in
            weights.withUnsafeBufferPointer { w in
                result.withUnsafeMutableBufferPointer { y in
                    for row in 0..<rows {
                        for output in 0..<outputs { y[row * outputs + output] = biases[output] }
                    }
                    for i in 0..<inputs {
                        let weightRow = w.baseAddress! + i * outputs
                        for row in 0..<rows {
                            let value = x[row * inputs + i]
                            if value == 0 { continue }
                            let out = y.baseAddress! + row * outputs
                            for output in 0..<outputs { out[output] += value * weightRow[output] }
                        }
                    }
                    if relu { for index in 0..<rows * outputs where y[index] < 0 { y[index] = 0 } }
                }
            }
        }
        return result
    }

    /// The `fraction` percentile of `values`, interpolated linearly between neighbours (numpy's default).
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down)), upper = min(sorted.count - 1, lower + 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }
}
