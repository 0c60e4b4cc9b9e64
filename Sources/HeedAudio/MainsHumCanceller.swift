import Foundation

/// Removes mains hum by subtracting it: a fridge's or a transformer's 50 or 60 Hz and their
/// harmonics are sinusoids at known frequencies, so each one's amplitude and phase can be
/// measured in the pauses and the same sinusoid taken out of the speech too. A filter (a notch,
/// the suppressor's high-pass) would take the speech's own energy at those frequencies and ring
/// after every plosive; subtracting a fitted sinusoid takes only what repeats at the mains period.
///
/// Each harmonic's sine and cosine parts are running averages of the audio demodulated at its
/// frequency (the average of x·cos and x·sin, doubled), over every sample heard so far until there
/// are `window` seconds of them, then over the last `window` seconds. Only blocks no louder than
/// twice the quietest recent block (pauses, not speech) are averaged, so a voice's harmonics that
/// happen to sit on the mains' do not become part of the hum. Without hum the averages are about
/// zero and nothing is taken out.
public struct MainsHumCanceller: Sendable {
    /// The mains frequencies in use in the world, in Hz.
    static let mainsFrequencies = [50.0, 60.0]
    /// Harmonics are cancelled up to this frequency (Hz).
    static let highestHarmonic = 1000.0
    /// Blocks whose energy decides whether they are averaged (10 ms at 16 kHz).
    static let blockMilliseconds = 10
    /// A block is a pause, and averaged, when its energy is at most this many times the floor.
    static let pauseEnergyRatio = 2.0
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

    private let blockLength: Int
    private let minWeight: Double
    private let minCompared: Double
    /// Per harmonic: the rotation per sample (cos, sin), the oscillator's phase (cos, sin), and the
    /// fitted cosine and sine amplitudes.
    private let step: [(cos: Double, sin: Double)]
    /// Per mains frequency, the indices of its harmonics. Both are fitted, only the one the pauses
    /// repeat at is subtracted: averaged over a short time, the other's fit holds some of its
    /// harmonics (50 and 60 Hz are only 10 Hz apart).
    private let harmonicsOf: [[Int]]
    private var phase: [(cos: Double, sin: Double)]
    private var amplitude: [(cos: Double, sin: Double)]
    /// Pause samples averaged into the fit so far (the first `window` seconds are averaged equally),
    /// samples heard, and pause samples whose period-earlier sample was heard (the periodicity's).
    private var averaged = 0.0
    private var heard = 0.0
    private var compared = 0.0
    private var floor: Double?
    private var blockEnergies: [Double] = []
    /// The last `floorHistoryBlocks` blocks' energies, oldest first once full, and where the next goes.
    private var energyHistory: [Double] = []
    private var energyHistoryIndex = 0
    /// Whether the fit is being subtracted (`minPeriodicity`, `keepPeriodicity`).
    private var subtracting = false
    /// The mains periods in samples, the last period's worth of input (longest period), and per
    /// period the running averages of x[n]·x[n-P], x[n]² and x[n-P]² over the pauses.
    private let periods: [Int]
    private var recent: [Double]
    private var recentIndex = 0
    private var products: [(product: Double, energy: Double, lagged: Double)]

    /// `window`: how many seconds of pauses the fit follows (it adapts to hum that drifts in
    /// level or frequency over about this long).
    public init(sampleRate: Int = 16_000, window: Double = 1.0) {
        blockLength = sampleRate * Self.blockMilliseconds / 1000
        minWeight = 1 / (window * Double(sampleRate))
        minCompared = Self.minComparedSeconds * Double(sampleRate)
        var frequencies: [Double] = []
        var harmonicsOf: [[Int]] = []
        for mains in Self.mainsFrequencies {
            let highest = Int(min(Self.highestHarmonic, Double(sampleRate) / 2) / mains)
            harmonicsOf.append((1...max(1, highest)).map { k in
                if let index = frequencies.firstIndex(of: Double(k) * mains) { return index }
                frequencies.append(Double(k) * mains)
                return frequencies.count - 1
            })
        }
        self.harmonicsOf = harmonicsOf
        periods = Self.mainsFrequencies.map { Int((Double(sampleRate) / $0).rounded()) }
        recent = Array(repeating: 0, count: periods.max()!)
        products = Array(repeating: (0, 0, 0), count: periods.count)
        step = frequencies.map { (cos(2 * .pi * $0 / Double(sampleRate)), sin(2 * .pi * $0 / Double(sampleRate))) }
        phase = Array(repeating: (1, 0), count: frequencies.count)
        amplitude = Array(repeating: (0, 0), count: frequencies.count)
    }

    /// Per mains frequency, how periodic the pauses are at its period.
    private var periodicities: [Double] {
        products.map { $0.energy > 0 && $0.lagged > 0 ? $0.product / ($0.energy * $0.lagged).squareRoot() : 0 }
    }

    /// The samples without the hum fitted so far; the fit learns from their pauses.
    public mutating func process(_ samples: [Int16]) -> [Int16] {
        var output = [Int16]()
        output.reserveCapacity(samples.count)
        var start = 0
        while start < samples.count {
            let block = samples[start..<min(start + blockLength, samples.count)]
            output += process(block: block)
            start += block.count
        }
        return output
    }

    private mutating func process(block: ArraySlice<Int16>) -> [Int16] {
        let count = step.count
        let start = phase
        // Switched on or off over one block: a step in the hum would sound like an onset.
        let wasSubtracting = subtracting
        let periodicities = periodicities, mains = periodicities.indices.max { periodicities[$0] < periodicities[$1] }!
        if subtracting {
            subtracting = periodicities[mains] >= Self.keepPeriodicity
        } else {
            let others = periodicities.indices.filter { $0 != mains }.map { periodicities[$0] }.max() ?? 0
            subtracting = compared >= minCompared && periodicities[mains] >= Self.minPeriodicity
                && periodicities[mains] - others >= Self.minMargin
        }
        let fade = (from: wasSubtracting ? 1.0 : 0.0, to: subtracting ? 1.0 : 0.0)
        let subtracted = harmonicsOf[mains]
        var output = [Int16](repeating: 0, count: block.count)
        var residualEnergy = 0.0
        for (index, sample) in block.enumerated() {
            let x = Double(sample)
            var hum = 0.0
            for k in subtracted { hum += amplitude[k].cos * phase[k].cos + amplitude[k].sin * phase[k].sin }
            residualEnergy += (x - hum) * (x - hum)
            let gain = fade.from + (fade.to - fade.from) * Double(index + 1) / Double(block.count)
            output[index] = Int16(max(-32768, min(32767, (x - gain * hum).rounded())))
            advance()
        }
        // A pause is judged on what the fit leaves (the last few blocks: one block holds half a
        // period of 50 Hz): against hum taken out, even weak speech stands out, and stays out of the fit.
        blockEnergies.append(residualEnergy / Double(block.count))
        if blockEnergies.count > Self.pauseBlocks { blockEnergies.removeFirst() }
        let energy = blockEnergies.reduce(0, +) / Double(blockEnergies.count)
        if energyHistory.count < Self.floorHistoryBlocks {
            energyHistory.append(energy)
        } else {
            energyHistory[energyHistoryIndex] = energy
            energyHistoryIndex = (energyHistoryIndex + 1) % Self.floorHistoryBlocks
        }
        var floor = min(self.floor.map { $0 * Self.floorRise } ?? energy, energy)
        if energyHistory.count == Self.floorHistoryBlocks { floor = max(floor, energyHistory.min()!) }
        self.floor = floor
        if energy <= Self.pauseEnergyRatio * floor {
            phase = start
            for sample in block {
                let x = Double(sample)
                averaged += 1
                let weight = max(1 / averaged, minWeight)
                heard += 1
                if heard > Double(recent.count) { compared += 1 }
                let productWeight = compared > 0 ? max(1 / compared, minWeight) : 0
                for (p, period) in periods.enumerated() where compared > 0 {
                    let lagged = recent[(recentIndex - period + recent.count) % recent.count]
                    products[p].product += productWeight * (x * lagged - products[p].product)
                    products[p].energy += productWeight * (x * x - products[p].energy)
                    products[p].lagged += productWeight * (lagged * lagged - products[p].lagged)
                }
                for k in 0..<count {
                    amplitude[k].cos += weight * (2 * x * phase[k].cos - amplitude[k].cos)
                    amplitude[k].sin += weight * (2 * x * phase[k].sin - amplitude[k].sin)
                }
                advance()
                remember(x)
            }
        } else {
            for sample in block { remember(Double(sample)); heard += 1 }
        }
        // Rounding errors would let the oscillators' amplitude drift over hours.
        for k in 0..<count {
            let norm = (phase[k].cos * phase[k].cos + phase[k].sin * phase[k].sin).squareRoot()
            phase[k] = (phase[k].cos / norm, phase[k].sin / norm)
        }
        return output
    }

    /// Keeps `x` for the periodicity, a mains period on.
    private mutating func remember(_ x: Double) {
        recent[recentIndex] = x
        recentIndex = (recentIndex + 1) % recent.count
    }

    /// Every harmonic's oscillator one sample on.
    private mutating func advance() {
        for k in 0..<step.count {
            let (c, s) = phase[k]
            phase[k] = (c * step[k].cos - s * step[k].sin, s * step[k].cos + c * step[k].sin)
        }
    }
}
