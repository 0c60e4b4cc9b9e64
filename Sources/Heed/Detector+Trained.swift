// Written by `make detector` (scripts/detector.py) from the dev sets' evidence: 14111 candidate
// commands (4696 right) from the real-speech suites, quiet and in the real noises at 24,18,12,6 dB,
// and 2.67 hours of real noise and talk with no command in it.
extension Detector {
    public static let trained = Detector(weights: [
        "share": 3.20031,
        "garbageShare": 1.69314,
        "loopShortfall": -0.0153237,
        "garbageShortfall": -0.0388003,
        "wordLoopShortfall": -0.205883,
        "wordLoopShortfallSingleWord": 0.098716,
        "wordGarbageShortfall": 0.00166614,
        "wordFraction": 1.78625,
        "heldToLanguage": -2.6168,
        "singleWord": 2.23442,
        "logWords": 0.397889,
        "noisy": -0.674469,
        "adaptedToNoise": 0.131396,
        "shareSingleWord": -2.7482,
        "garbageShareSingleWord": -1.78243,
        "heldSingleWord": 1.73949,
        "noisySingleWord": 0.256694,
        "wordGarbageShortfallSingleWord": -0.00658933,
    ], bias: -1.50673)

    /// The highest sensitivity at which both folds kept to one false command per hour of the
    /// dev noise and talk streams (cross-validated by speaker and noise file).
    public static let defaultSensitivity = 0.4
}
