import Foundation
import HeedTestSupport
import Testing
@testable import Heed

/// The one detector: evidence to a probability to a decision, as a pure function, and on real
/// recordings through the real decoder.
@Suite(.serialized) struct DetectorTests {
    static func evidence(loop: Double = 5, share: Double = 1, words: Int = 1, held: Bool = false, garbage: Double = 0) -> Evidence {
        Evidence(transcript: "stop", share: share, garbageShare: 1 - share, loopShortfall: loop, garbageShortfall: garbage,
                 wordLoopShortfall: loop, wordFraction: 0.5, heldToLanguage: held, words: words,
                 seconds: 0.8)
    }

    /// The probability is the logistic of the bias and the weighted features, and the trace's
    /// terms are exactly those products, largest first.
    @Test func theProbabilityIsTheLogisticOfItsTerms() {
        let detector = Detector(weights: ["share": 2, "loopShortfall": -0.5], bias: 1)
        let (probability, terms) = detector.probability(of: Self.evidence(loop: 4, share: 0.5))
        #expect(terms.map(\.feature) == ["loopShortfall", "share"])
        #expect(terms.map(\.contribution) == [-2, 1])
        #expect(abs(probability - 1 / (1 + exp(-(1 + 1 - 2.0)))) < 1e-12)
    }

    /// Sensitivity is the one handle: 0 accepts nothing, 1 everything decoded, and in between a
    /// command is accepted at a probability of 1 - sensitivity or more.
    @Test func sensitivitySetsTheThreshold() {
        let sure = Detector(weights: [:], bias: 50), unsure = Detector(weights: [:], bias: -50)
        #expect(!sure.decide(Self.evidence(), sensitivity: 0).accepted)
        #expect(unsure.decide(Self.evidence(), sensitivity: 1).accepted)
        let even = Detector(weights: [:], bias: 0)  // probability 0.5
        #expect(even.decide(Self.evidence(), sensitivity: 0.5).accepted)
        #expect(!even.decide(Self.evidence(), sensitivity: 0.49).accepted)
        #expect(even.decide(Self.evidence(), sensitivity: 0.7).threshold == 1 - 0.7)
    }

    /// The detector shipped weighs only features evidence has, and a command that fits its
    /// samples worse than the phone loop does, or further under the garbage path, is less likely.
    @Test func theTrainedDetectorFallsAsTheFitWorsens() {
        let features = Self.evidence().features
        #expect(Detector.trained.weights.keys.allSatisfy { features[$0] != nil })
        let probability = { (e: Evidence) in Detector.trained.probability(of: e).probability }
        #expect(probability(Self.evidence(loop: 2)) > probability(Self.evidence(loop: 20)))
        #expect(probability(Self.evidence(held: true, garbage: 1)) > probability(Self.evidence(held: true, garbage: 20)))
        #expect(Detector.sensitivityRange.contains(Detector.defaultSensitivity))
    }

    /// Real one-word clips: a real "stop" is accepted and a real "down" (decoded as "done") is
    /// turned away at the default sensitivity, each with the detector's trace; at sensitivity 1
    /// the same "down" is taken for the command its decode found.
    @Test func realWordsAreDecidedByTheDetectorAlone() throws {
        let words = Fixtures.root.appendingPathComponent("Tests/Golden/real-words")
        let recognizer = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
        let stop = try recognizer.recognize(file: words.appendingPathComponent("stop-1eddce1d_nohash_3.wav"))
        let heard = try #require(stop.first { $0.understood })
        #expect(heard.intent?.name == "stop")
        let detection = try #require(heard.detection)
        #expect(detection.accepted && heard.confidence == detection.probability && detection.probability >= detection.threshold)

        let down = words.appendingPathComponent("down-5fe4a278_nohash_0.wav")
        let rejected = try recognizer.recognize(file: down)
        #expect(rejected.allSatisfy { !$0.understood }, "\(rejected)")
        let candidate = try #require(rejected.compactMap(\.detection).first, "the decode found no command to decide on")
        #expect(!candidate.accepted && candidate.probability < candidate.threshold)

        var options = RecognizerOptions()
        options.sensitivity = 1
        let everything = try CommandRecognizer(options: options, authorization: TestAuthorization.speechRecognition())
        let taken = try everything.recognize(file: down).filter(\.understood)
        #expect(taken.map(\.transcript) == [candidate.evidence.transcript], "\(taken)")
    }
}
