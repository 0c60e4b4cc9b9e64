import Foundation

/// What the decodes of one utterance say about the command they found: the detector's input.
/// Every field is measured the same way for a built-in word, a whole request and a dialogue's
/// answer, in quiet and in noise.
public struct Evidence: Equatable, Sendable, Codable {
    /// The command's words, as decoded (whether or not it is accepted).
    public var transcript: String
    /// The share of the N-best probability mass on the command's meaning (its intent and slots),
    /// and on the garbage paths (speech that is not a command; 1 when they won the first decode
    /// and the command comes from the language alone).
    public var share: Double
    public var garbageShare: Double
    /// Per frame, how far the command's acoustic fit falls below a free phone loop's on the same
    /// samples (decoder log units; the loop fits any sounds at least as well as any words).
    public var loopShortfall: Double
    /// Per frame, how far it falls below the garbage path's, when the garbage paths won the
    /// utterance and the command came from decoding it against the commands' language alone
    /// (`heldToLanguage`); 0 when the command beat the garbage paths itself.
    public var garbageShortfall: Double
    /// The phone loop's shortfall over the command's own words' frames only (from its first
    /// word's start to its last word's end), where the silence around them does not dilute it.
    public var wordLoopShortfall: Double
    /// The share of the utterance's frames its words take.
    public var wordFraction: Double
    /// Whether the command came from the language alone, the garbage paths having won.
    public var heldToLanguage: Bool
    /// Spoken words, and the utterance's length.
    public var words: Int
    public var seconds: Double
    /// Whether the noise stage judged the utterance noisy, and the model was adapted to its noise.
    public var noisy: Bool
    public var adaptedToNoise: Bool

    public init(transcript: String, share: Double, garbageShare: Double, loopShortfall: Double, garbageShortfall: Double = 0,
                wordLoopShortfall: Double, wordFraction: Double, heldToLanguage: Bool = false, words: Int, seconds: Double,
                noisy: Bool = false, adaptedToNoise: Bool = false) {
        self.transcript = transcript
        self.share = share
        self.garbageShare = garbageShare
        self.loopShortfall = loopShortfall
        self.garbageShortfall = garbageShortfall
        self.wordLoopShortfall = wordLoopShortfall
        self.wordFraction = wordFraction
        self.heldToLanguage = heldToLanguage
        self.words = words
        self.seconds = seconds
        self.noisy = noisy
        self.adaptedToNoise = adaptedToNoise
    }

    /// The features a detector model can weigh, by name (`Detector.weights`); scripts/detector.py
    /// computes the same from the same fields. Shortfalls are clamped, so that one wild decode
    /// cannot dominate.
    public var features: [String: Double] {
        let single = words <= 1 ? 1.0 : 0.0
        func clamped(_ value: Double) -> Double { min(max(value, -20), 100) }
        return [
            "share": share,
            "garbageShare": garbageShare,
            "loopShortfall": clamped(loopShortfall),
            "wordLoopShortfall": clamped(wordLoopShortfall),
            "wordLoopShortfallSingleWord": clamped(wordLoopShortfall) * single,
            "garbageShortfall": clamped(max(garbageShortfall, 0)),
            "heldToLanguage": heldToLanguage ? 1 : 0,
            "wordFraction": wordFraction,
            "singleWord": single,
            "logWords": log(Double(max(words, 1))),
            "noisy": noisy ? 1 : 0,
            "adaptedToNoise": adaptedToNoise ? 1 : 0,
        ]
    }
}

/// The one detector: a logistic model that turns an utterance's `Evidence` into the probability
/// that the command decoded is the command spoken, calibrated on real recordings
/// (`scripts/detector.py` fits it and writes `Detector+Trained.swift`). A command is accepted
/// when that probability reaches `1 - sensitivity`; nothing else accepts or rejects.
public struct Detector: Equatable, Sendable {
    /// Feature names (`Evidence.features`) and their weights, plus the intercept.
    public var weights: [String: Double]
    public var bias: Double

    public init(weights: [String: Double], bias: Double) {
        self.weights = weights
        self.bias = bias
    }

    /// The model's terms, largest effect first, and the probability they add up to.
    public func probability(of evidence: Evidence) -> (probability: Double, terms: [Detection.Term]) {
        let features = evidence.features
        var terms: [Detection.Term] = []
        var logit = bias
        for (name, weight) in weights.sorted(by: { $0.key < $1.key }) {
            guard let value = features[name] else { preconditionFailure("the detector weighs a feature evidence lacks: \(name)") }
            logit += weight * value
            terms.append(.init(feature: name, value: value, contribution: weight * value))
        }
        terms.sort { abs($0.contribution) > abs($1.contribution) }
        return (1 / (1 + exp(-logit)), terms)
    }

    /// The decision on one candidate command, with its trace.
    public func decide(_ evidence: Evidence, sensitivity: Double) -> Detection {
        let (probability, terms) = probability(of: evidence)
        return Detection(evidence: evidence, probability: probability, threshold: Self.threshold(sensitivity: sensitivity), terms: terms)
    }

    /// Sensitivity runs from 0 (accept nothing) to 1 (accept every command decoded), as
    /// Porcupine's and Rhino's do: higher hears more commands and more that nobody gave.
    public static func threshold(sensitivity: Double) -> Double { sensitivity > 0 ? 1 - sensitivity : .infinity }

    public static let sensitivityRange: ClosedRange<Double> = 0...1
}

/// The detector's decision on one candidate command, and why: what `--explain` prints and what
/// tests assert on.
public struct Detection: Equatable, Sendable {
    public var evidence: Evidence
    /// The probability the command decoded is the one spoken (what `Utterance.confidence` reports).
    public var probability: Double
    /// It is accepted at this probability or above (`1 - sensitivity`).
    public var threshold: Double
    /// Each feature's value and its share of the log-odds, largest first.
    public var terms: [Term]
    public var accepted: Bool { probability >= threshold }

    public struct Term: Equatable, Sendable {
        public var feature: String
        public var value: Double
        public var contribution: Double
    }
}
