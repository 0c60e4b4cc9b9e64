// Written by `make detector` (scripts/detector.py) from the dev sets' evidence: 14111 candidate
// commands (4696 right) from the real-speech suites, quiet and in the real noises at 24,18,12,6 dB,
// and 2.67 hours of real noise and talk with no command in it.
extension Detector {
    public static let trained = Detector(weights: [
        "share": 1.16976,
        "garbageShare": 0.360272,
        "loopShortfall": -0.0163714,
        "wordLoopShortfall": -0.215599,
        "wordLoopShortfallSingleWord": 0.109995,
        "garbageShortfall": -0.0403579,
        "heldToLanguage": -1.41568,
        "wordFraction": 1.65044,
        "singleWord": 0.389018,
        "logWords": 0.504743,
        "noisy": -0.443348,
        "adaptedToNoise": 0.164647,
    ], bias: -0.150257)

    /// The highest sensitivity at which this model, and each fold's model on the other fold,
    /// kept to one false command per hour of the dev noise and talk streams.
    public static let defaultSensitivity = 0.4
}
