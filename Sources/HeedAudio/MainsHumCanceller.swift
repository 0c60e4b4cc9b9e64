import Foundation

/// Removes mains hum by subtracting it: a fridge's or a transformer's 50 or 60 Hz and their
/// harmonics are sinusoids at known frequencies, so each one's amplitude and phase can be
/// measured in the pauses and the same sinusoid taken out of the speech too. A filter (a notch,
/// the suppressor's high-pass) would take the speech's own energy at those frequencies and ring
/// after every plosive; subtracting a fitted sinusoid takes only what repeats at the mains period.
///
/// Each harmonic's sine and cosine parts are running averages of the audio demodulated at its
/// frequency (the average of x·cos and x·sin, doubled), over every pause sample heard until
/// there are `window` seconds of them, then over the last `window` seconds. Only pauses are
/// averaged (blocks that the fit leaves quiet, or a steady input), so a voice's harmonics that
/// happen to sit on the mains' do not become part of the hum. The fit is subtracted only once the
/// pauses clearly repeat at a mains period (`minPeriodicity`): without hum, audio comes out
/// exactly as it went in. The oscillators follow the grid's drift (`trackingSeconds`).
public struct MainsHumCanceller: Sendable {
    /// The mains frequencies in use in the world, in Hz.
    static let mainsFrequencies = [50.0, 60.0]
    /// Harmonics are cancelled up to this frequency (Hz).
    static let highestHarmonic = 1000.0
    /// Blocks whose energy decides whether they are averaged (10 ms at 16 kHz).
    static let blockMilliseconds = 10
    /// A block is a pause, and averaged, when what the fit leaves of it is at most this many times
    /// its floor, or the input itself at most `steadyInputRatio` times its own: a steady hum
    /// alone, which a fit that fell behind a drifting hum no longer takes out (the pauses would
    /// stop being found, and the fit would never catch up).
    static let pauseEnergyRatio = 2.0
    static let steadyInputRatio = 1.25
    /// The floor (the quietest recent block's energy) rises by this factor per block until a
    /// quieter block comes, so it follows noise that grows (about 2 dB a second).
    static let floorRise = 1.005
    /// The floor is never below the quietest block of this many last ones (3 s): after digital
    /// silence (a floor of zero) or a hum that starts loud, the pauses are found again this soon.
    static let floorHistoryBlocks = 300
    /// How many blocks' energy is compared with the floor (40 ms: two periods of 50 Hz).
    static let pauseBlocks = 4
    /// The fit starts being subtracted when the pauses correlate at least this much with
    /// themselves one mains period later (`MainsHum`'s measure), and by at least `minMargin` more
    /// than one period of the other mains frequency later: otherwise what it fits is the noise's
    /// own share of those frequencies, which changes from moment to moment. Brown noise, whose
    /// correlation falls slowly with the lag, reached 0.63 in the suites' pauses and margins of
    /// 0.25-0.32 at 0.5; the suites' hum at 24 dB 0.68 and more, mostly with margins above 0.5.
    static let minPeriodicity = 0.65
    static let minMargin = 0.25
    /// Once subtracting, the fit stays subtracted until the periodicity falls below this: a speech
    /// sound heard as a pause lowers it for a while, and hum that came and went would leave clicks.
    static let keepPeriodicity = 0.25
    /// The periodicity is trusted after this many seconds of pauses (a few mains periods).
    static let minComparedSeconds = 0.05
    /// The grid's frequency is never exactly 50 or 60 Hz: it drifts by a few hundredths of a
    /// hertz. Off by 0.02 Hz, a fit at exactly 50 Hz took 3 dB of hum out instead of 47. So the
    /// mains frequency heard is tracked: each harmonic's phase is measured over every
    /// `trackingSeconds` of pauses, how fast it turns against the oscillator is the frequency
    /// error, and the oscillators are moved by `trackingGain` of it, within `maxDrift` Hz.
    static let trackingSeconds = 0.2
    static let trackingHarmonics = 6
    static let trackingGain = 0.5
    static let maxDrift = 0.5

    private let blockLength: Int
    private let sampleRate: Double
    private let minWeight: Double
    private let minCompared: Double
    /// Per mains frequency, the indices of its harmonics in the arrays below. Both are fitted,
    /// only the one the pauses repeat at is subtracted: averaged over a short time, the other's
    /// fit holds some of its harmonics (50 and 60 Hz are only 10 Hz apart). Each has oscillators
    /// of its own, since each follows its own drift.
    private let harmonicsOf: [Range<Int>]
    /// Per harmonic: its number (1 for the fundamental), the rotation per sample (cos, sin), the
    /// oscillator's phase (cos, sin), and the fitted cosine and sine amplitudes. Flat arrays of
    /// numbers: these loops run for every sample, and must be quick in a debug build too.
    private let harmonicNumbers: [Double]
    private var stepCos: [Double], stepSin: [Double]
    private var phaseCos: [Double], phaseSin: [Double]
    private var fitCos: [Double], fitSin: [Double]
    /// Per mains frequency, the fundamental its oscillators run at (`trackingSeconds`).
    private(set) var fundamentals: [Double]
    /// The tracked mains frequency's first harmonics demodulated over the pauses of the current
    /// `trackingSeconds` (sums, and the sum of the sample times), and the last such interval's
    /// phasors and mean time; `trackedMains` is whose.
    private var interval: (sums: [(cos: Double, sin: Double)], samples: Double, time: Double)
    private var lastInterval: (phasors: [(cos: Double, sin: Double)], time: Double)?
    private var trackedMains: Int?
    /// Pause samples averaged into the fit (the first `window` seconds are averaged equally),
    /// samples heard, and pause samples whose period-earlier sample was heard (the periodicity's).
    private var averaged = 0.0
    private var heard = 0.0
    private var compared = 0.0
    /// The current block: its samples so far, their energy and what the fit leaves of it, and, decided as it
    /// began, whose hum is subtracted from it and how (nil: none); the oscillators as its
    /// subtraction has moved them so far (`phaseCos` moves a whole block at a time).
    private struct Block {
        var input: [Double] = []
        var residualEnergy = 0.0, inputEnergy = 0.0
        var mains = 0
        var fade: (from: Double, to: Double)?
    }
    private var block = Block()
    private var humPhaseCos: [Double] = [], humPhaseSin: [Double] = []
    /// The energies of what the fit leaves and of the input, against their floors.
    private var residualLevel = Level()
    private var inputLevel = Level()
    /// Whether the fit is being subtracted (`minPeriodicity`, `keepPeriodicity`). It is fitted all
    /// the time: fitted only once the pauses began to repeat, it was late when subtracted, and
    /// all five suites in hum at 24 dB lost 6 commands and took 3 non-commands.
    private var subtracting = false
    /// The mains periods in samples, the last period's worth of input (longest period), and per
    /// period the running averages of x[n]·x[n-P], x[n]² and x[n-P]² over the pauses.
    private let periods: [Int]
    private var recent: [Double]
    private var recentIndex = 0
    private var products: [(product: Double, energy: Double, lagged: Double)]

    /// `window`: how many seconds of pauses the fit follows (it adapts to hum that changes in
    /// level over about this long).
    public init(sampleRate: Int = 16_000, window: Double = 1.0) {
        blockLength = sampleRate * Self.blockMilliseconds / 1000
        self.sampleRate = Double(sampleRate)
        minWeight = 1 / (window * Double(sampleRate))
        minCompared = Self.minComparedSeconds * Double(sampleRate)
        var numbers: [Double] = []
        var harmonicsOf: [Range<Int>] = []
        for mains in Self.mainsFrequencies {
            // Below the Nyquist frequency however far the fundamental drifts.
            let highest = Int(min(Self.highestHarmonic, Double(sampleRate) / 2 - Self.maxDrift * 20) / mains)
            harmonicsOf.append(numbers.count..<(numbers.count + max(1, highest)))
            numbers += (1...max(1, highest)).map(Double.init)
        }
        self.harmonicsOf = harmonicsOf
        harmonicNumbers = numbers
        fundamentals = Self.mainsFrequencies
        interval = (Array(repeating: (0, 0), count: Self.trackingHarmonics), 0, 0)
        periods = Self.mainsFrequencies.map { Int((Double(sampleRate) / $0).rounded()) }
        recent = Array(repeating: 0, count: periods.max()!)
        products = Array(repeating: (0, 0, 0), count: periods.count)
        stepCos = Array(repeating: 1, count: numbers.count)
        stepSin = Array(repeating: 0, count: numbers.count)
        phaseCos = Array(repeating: 1, count: numbers.count)
        phaseSin = Array(repeating: 0, count: numbers.count)
        fitCos = Array(repeating: 0, count: numbers.count)
        fitSin = Array(repeating: 0, count: numbers.count)
        for mains in harmonicsOf.indices { tune(mains) }
    }

    /// Sets `mains`'s oscillators' rotation per sample from its fundamental.
    private mutating func tune(_ mains: Int) {
        for k in harmonicsOf[mains] {
            let angle = 2 * .pi * harmonicNumbers[k] * fundamentals[mains] / sampleRate
            stepCos[k] = cos(angle)
            stepSin[k] = sin(angle)
        }
    }

    /// Every oscillator `count` samples on, exactly (and back to unit length, so that rounding
    /// errors do not change their amplitude over hours).
    private mutating func advance(by count: Int) {
        for mains in harmonicsOf.indices {
            for k in harmonicsOf[mains] {
                let angle = 2 * .pi * harmonicNumbers[k] * fundamentals[mains] * Double(count) / sampleRate
                let (c, s) = (cos(angle), sin(angle))
                let (pc, ps) = (phaseCos[k] * c - phaseSin[k] * s, phaseSin[k] * c + phaseCos[k] * s)
                let norm = (pc * pc + ps * ps).squareRoot()
                phaseCos[k] = pc / norm
                phaseSin[k] = ps / norm
            }
        }
    }

    /// Per mains frequency, how periodic the pauses are at its period.
    private var periodicities: [Double] {
        products.map { $0.energy > 0 && $0.lagged > 0 ? $0.product / ($0.energy * $0.lagged).squareRoot() : 0 }
    }

    /// The samples without the hum fitted so far; the fit learns from their pauses. Blocks
    /// count from the stream's first sample, whatever the calls' sizes, so the output does not
    /// depend on how the stream is cut.
    public mutating func process(_ samples: [Int16]) -> [Int16] {
        var output = [Int16]()
        output.reserveCapacity(samples.count)
        var start = 0
        while start < samples.count {
            if block.input.isEmpty { beginBlock() }
            let end = min(start + blockLength - block.input.count, samples.count)
            let input = samples[start..<end].map(Double.init)
            output += subtract(input)
            block.input += input
            start = end
            if block.input.count == blockLength { endBlock() }
        }
        return output
    }

    /// Decides, as a block begins, whether its hum is subtracted and which mains frequency's.
    private mutating func beginBlock() {
        let periodicities = periodicities, mains = periodicities.indices.max { periodicities[$0] < periodicities[$1] }!
        let wasSubtracting = subtracting
        if subtracting {
            subtracting = periodicities[mains] >= Self.keepPeriodicity
        } else {
            let others = periodicities.indices.filter { $0 != mains }.map { periodicities[$0] }.max() ?? 0
            subtracting = compared >= minCompared
                && periodicities[mains] >= Self.minPeriodicity && periodicities[mains] - others >= Self.minMargin
        }
        block.mains = mains
        // Switched on or off over one block: a step in the hum would sound like an onset.
        block.fade = wasSubtracting || subtracting ? (wasSubtracting ? 1 : 0, subtracting ? 1 : 0) : nil
        if block.fade != nil { (humPhaseCos, humPhaseSin) = (phaseCos, phaseSin) }
    }

    /// `input`, the next samples of the block, without the fitted hum.
    private mutating func subtract(_ input: [Double]) -> [Int16] {
        let energy = input.reduce(0) { $0 + $1 * $1 }
        block.inputEnergy += energy
        guard let fade = block.fade else {
            block.residualEnergy += energy
            return input.map { Int16($0) }
        }
        let hum = fittedHum(of: block.mains, count: input.count)
        let offset = block.input.count
        return input.indices.map { n in
            block.residualEnergy += (input[n] - hum[n]) * (input[n] - hum[n])
            let gain = fade.from + (fade.to - fade.from) * Double(offset + n + 1) / Double(blockLength)
            return Int16(max(-32768, min(32767, (input[n] - gain * hum[n]).rounded())))
        }
    }

    /// Judges a whole block: a pause is averaged into the fit and the periodicity.
    private mutating func endBlock() {
        let input = block.input
        // A pause is judged on what the fit leaves (the last few blocks: one block holds half a
        // period of 50 Hz): against hum taken out, even weak speech stands out, and stays out of the fit.
        let residual = residualLevel.add(block.residualEnergy / Double(input.count))
        let level = inputLevel.add(block.inputEnergy / Double(input.count))
        if residual.energy <= Self.pauseEnergyRatio * residual.floor || level.energy <= Self.steadyInputRatio * level.floor {
            comparePeriods(input)
            fit(input, tracking: subtracting ? block.mains : nil)
            if subtracting { track(block.mains) }
        } else {
            for x in input { remember(x) }
        }
        heard += Double(input.count)
        advance(by: input.count)
        block = Block()
    }

    /// The hum `mains`'s fit predicts for the next `count` samples of the block.
    private mutating func fittedHum(of mains: Int, count: Int) -> [Double] {
        var hum = [Double](repeating: 0, count: count)
        var phaseCos = humPhaseCos, phaseSin = humPhaseSin
        hum.withUnsafeMutableBufferPointer { hum in
            phaseCos.withUnsafeMutableBufferPointer { pc in
                phaseSin.withUnsafeMutableBufferPointer { ps in
                    stepCos.withUnsafeBufferPointer { sc in
                        stepSin.withUnsafeBufferPointer { ss in
                            fitCos.withUnsafeBufferPointer { fc in
                                fitSin.withUnsafeBufferPointer { fs in
                                    for n in 0..<count {
                                        var sum = 0.0
                                        for k in harmonicsOf[mains] {
                                            sum += fc[k] * pc[k] + fs[k] * ps[k]
                                            let c = pc[k]
                                            pc[k] = c * sc[k] - ps[k] * ss[k]
                                            ps[k] = ps[k] * sc[k] + c * ss[k]
                                        }
                                        hum[n] = sum
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        (humPhaseCos, humPhaseSin) = (phaseCos, phaseSin)
        return hum
    }

    /// Averages a pause's samples into the fit of every harmonic, and for the tracked mains
    /// frequency's first harmonics into the current interval (`track`).
    private mutating func fit(_ input: [Double], tracking mains: Int?) {
        var phaseCos = phaseCos, phaseSin = phaseSin, fitCos = fitCos, fitSin = fitSin
        var sums = interval.sums
        let tracked = mains.map { harmonicsOf[$0].prefix(Self.trackingHarmonics) } ?? 0..<0
        let (start, minWeight) = (heard, minWeight)
        var averaged = averaged
        phaseCos.withUnsafeMutableBufferPointer { pc in
            phaseSin.withUnsafeMutableBufferPointer { ps in
                fitCos.withUnsafeMutableBufferPointer { fc in
                    fitSin.withUnsafeMutableBufferPointer { fs in
                        stepCos.withUnsafeBufferPointer { sc in
                            stepSin.withUnsafeBufferPointer { ss in
                                for x in input {
                                    averaged += 1
                                    let weight = max(1 / averaged, minWeight)
                                    for k in 0..<pc.count {
                                        fc[k] += weight * (2 * x * pc[k] - fc[k])
                                        fs[k] += weight * (2 * x * ps[k] - fs[k])
                                    }
                                    for k in tracked {
                                        sums[k - tracked.lowerBound].cos += x * pc[k]
                                        sums[k - tracked.lowerBound].sin += x * ps[k]
                                    }
                                    for k in 0..<pc.count {
                                        let c = pc[k]
                                        pc[k] = c * sc[k] - ps[k] * ss[k]
                                        ps[k] = ps[k] * sc[k] + c * ss[k]
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        (self.fitCos, self.fitSin, self.averaged) = (fitCos, fitSin, averaged)
        if !tracked.isEmpty {
            let count = Double(input.count)
            interval = (sums, interval.samples + count, interval.time + count * start + count * (count - 1) / 2)
        }
    }

    /// Adds a pause's samples to the periodicity's averages (`periodicities`).
    private mutating func comparePeriods(_ input: [Double]) {
        for p in periods.indices {
            let period = periods[p]
            var (product, energy, laggedEnergy) = products[p]
            var compared = compared, index = recentIndex
            recent.withUnsafeBufferPointer { recent in
                for (n, x) in input.enumerated() {
                    if heard + Double(n) >= Double(recent.count) { compared += 1 }
                    if compared > 0 {
                        let weight = max(1 / compared, minWeight)
                        let lagged = recent[(index - period + recent.count) % recent.count]
                        product += weight * (x * lagged - product)
                        energy += weight * (x * x - energy)
                        laggedEnergy += weight * (lagged * lagged - laggedEnergy)
                    }
                    // The samples of this block are remembered after every period has seen them.
                    index = (index + 1) % recent.count
                }
            }
            products[p] = (product, energy, laggedEnergy)
            if p == periods.count - 1 { self.compared = compared }
        }
        for x in input { remember(x) }
    }

    /// Moves `mains`'s oscillators towards the frequency heard, once its pauses have filled an
    /// interval (`trackingSeconds`), by how far its harmonics turned since the last interval.
    private mutating func track(_ mains: Int) {
        if trackedMains != mains {
            trackedMains = mains
            lastInterval = nil
            interval = (Array(repeating: (0, 0), count: Self.trackingHarmonics), 0, 0)
            return
        }
        guard interval.samples >= Self.trackingSeconds * sampleRate else { return }
        let phasors = interval.sums, time = interval.time / interval.samples
        interval = (Array(repeating: (0, 0), count: Self.trackingHarmonics), 0, 0)
        defer { lastInterval = (phasors, time) }
        // Speech in between: a harmonic may have turned more than half a turn, which cannot be told apart.
        guard let last = lastInterval, time - last.time <= 2 * Self.trackingSeconds * sampleRate else { return }
        let seconds = (time - last.time) / sampleRate
        var error = 0.0, weights = 0.0
        for (n, (now, then)) in zip(phasors, last.phasors).enumerated() {
            // The fit's phasor is (cos, -sin) part: hum ahead of the oscillator turns it forwards.
            let real = now.cos * then.cos + now.sin * then.sin
            let imaginary = now.cos * then.sin - now.sin * then.cos
            let weight = (real * real + imaginary * imaginary).squareRoot()
            error += weight * atan2(imaginary, real) / (2 * .pi * Double(n + 1) * seconds)
            weights += weight
        }
        guard weights > 0 else { return }
        let nominal = Self.mainsFrequencies[mains]
        fundamentals[mains] = min(nominal + Self.maxDrift, max(nominal - Self.maxDrift, fundamentals[mains] + Self.trackingGain * error / weights))
        tune(mains)
    }

    /// The energy of the last few blocks (`pauseBlocks`) and its floor: the quietest it has been,
    /// rising slowly (`floorRise`), never below the quietest of the last `floorHistoryBlocks`.
    private struct Level {
        private var blocks: [Double] = []
        private var history: [Double] = []
        private var historyIndex = 0
        private var floor: Double?
        /// The quietest of `history`, found again every tenth block (the search is 300 long).
        private var historyMin = 0.0

        mutating func add(_ blockEnergy: Double) -> (energy: Double, floor: Double) {
            blocks.append(blockEnergy)
            if blocks.count > MainsHumCanceller.pauseBlocks { blocks.removeFirst() }
            let energy = blocks.reduce(0, +) / Double(blocks.count)
            if history.count < MainsHumCanceller.floorHistoryBlocks {
                history.append(energy)
            } else {
                history[historyIndex] = energy
                historyIndex = (historyIndex + 1) % history.count
            }
            var floor = min(self.floor.map { $0 * MainsHumCanceller.floorRise } ?? energy, energy)
            if history.count == MainsHumCanceller.floorHistoryBlocks {
                if historyIndex % 10 == 0 { historyMin = history.min()! }
                floor = max(floor, historyMin)
            }
            self.floor = floor
            return (energy, floor)
        }
    }

    /// Keeps `x` for the periodicity, a mains period on.
    private mutating func remember(_ x: Double) {
        recent[recentIndex] = x
        recentIndex = (recentIndex + 1) % recent.count
    }
}
