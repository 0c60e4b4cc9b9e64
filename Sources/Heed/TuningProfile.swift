import Foundation
import HeedAudio

/// Every tuning setting of the pipeline in one versioned file (JSON), for `heed ... --profile FILE`
/// and for apps: what is left out keeps its default (`RecognizerOptions`). docs/tuning.md lists
/// the fields and what each does.
public struct TuningProfile: Codable, Equatable, Sendable {
    /// The format's version (a file without one is version 1); a file of a later version is
    /// refused rather than half read.
    public static let currentVersion = 1
    public var version: Int? = TuningProfile.currentVersion
    public var trailingSilence: Double?
    public var pauseInsideRequest: Double?
    public var garbageWordPenalty: Double?
    public var garbagePhonePenalty: Double?
    /// 0...1: how readily a decoded command is accepted (`RecognizerOptions.sensitivity`).
    public var sensitivity: Double?
    /// "webrtc", "speex" or "off".
    public var noiseSuppressor: String?
    public var maskingNoiseBelowPeakDB: Double?
    public var noisyBelowRangeDB: Double?
    public var noiseAdaptation: Bool?
    public var maxActiveHMMs: Int?
    /// PocketSphinx arguments passed through, e.g. {"-beam": "1e-60"}.
    public var decoderArguments: [String: String]?

    public init() {}

    /// The ranges `trailingSilence` and `pauseInsideRequest` (seconds) and `sensitivity` must
    /// be in (the command line's flags for them are checked against the same).
    public static let pauseRange: ClosedRange<Double> = 0.05...5
    public static let sensitivityRange = Detector.sensitivityRange

    /// Reads a profile; a missing file, bad JSON, a setting this heed does not know (a typo, or
    /// one since removed), an unknown version or a value out of range is a `.badInput` error
    /// naming the file: a profile is never half applied.
    public init(contentsOf url: URL) throws(HeedError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw HeedError(.cannotOpen, "\(url.path): cannot read the profile") }
        do { self = try JSONDecoder().decode(TuningProfile.self, from: data) } catch {
            throw HeedError(.badInput, "\(url.path): not a tuning profile (\(Self.describe(error)))")
        }
        let known = Set(Mirror(reflecting: self).children.compactMap(\.label))
        if let fields = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
           let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw HeedError(.badInput, "\(url.path): unknown setting '\(unknown)' (docs/tuning.md lists them)")
        }
        guard (1...Self.currentVersion).contains(version ?? 1) else {
            throw HeedError(.badInput, "\(url.path): profile version \(version ?? 1); this heed reads version \(Self.currentVersion)")
        }
        if let problem = validationProblem() { throw HeedError(.badInput, "\(url.path): \(problem)") }
    }

    /// The first setting out of its range, described; nil when all are fine.
    public func validationProblem() -> String? {
        func outside(_ value: Double?, _ range: ClosedRange<Double>, _ name: String) -> String? {
            guard let value, !range.contains(value) else { return nil }
            return "\(name) \(value) is outside \(range.lowerBound)...\(range.upperBound)"
        }
        if let suppressor = noiseSuppressor, NoiseSuppressorName(rawValue: suppressor) == nil {
            return "noiseSuppressor must be webrtc, speex or off, not \(suppressor)"
        }
        if let maxActiveHMMs, maxActiveHMMs < 0 { return "maxActiveHMMs must be 0 (no cap) or more" }
        let ranged: [(Double?, ClosedRange<Double>, String)] = [
            (trailingSilence, Self.pauseRange, "trailingSilence"), (pauseInsideRequest, Self.pauseRange, "pauseInsideRequest"),
            (garbageWordPenalty, 1e-30...1, "garbageWordPenalty"), (garbagePhonePenalty, 1e-30...1, "garbagePhonePenalty"),
            (sensitivity, Self.sensitivityRange, "sensitivity"), (maskingNoiseBelowPeakDB, 0...90, "maskingNoiseBelowPeakDB"),
            (noisyBelowRangeDB, 0...90, "noisyBelowRangeDB"),
        ]
        return ranged.lazy.compactMap { outside($0.0, $0.1, $0.2) }.first
    }

    /// `options` with this profile's settings applied (0 turns the floor or the cap off).
    public func applied(to options: RecognizerOptions) -> RecognizerOptions {
        var options = options
        if let trailingSilence { options.endpointer.trailingSilence = trailingSilence }
        if let pauseInsideRequest { options.endpointer.pauseInsideRequest = pauseInsideRequest }
        if let garbageWordPenalty { options.garbageWordPenalty = garbageWordPenalty }
        if let garbagePhonePenalty { options.garbagePhonePenalty = garbagePhonePenalty }
        if let sensitivity { options.sensitivity = sensitivity }
        if let name = noiseSuppressor.flatMap(NoiseSuppressorName.init(rawValue:)) { options.noiseSuppression = name.method }
        if let maskingNoiseBelowPeakDB { options.maskingNoiseBelowPeakDB = maskingNoiseBelowPeakDB > 0 ? maskingNoiseBelowPeakDB : nil }
        if let noisyBelowRangeDB { options.noiseSuppressionRangeDB = noisyBelowRangeDB > 0 ? noisyBelowRangeDB : nil }
        if let noiseAdaptation { options.noiseAdaptation = noiseAdaptation ? (options.noiseAdaptation ?? .init()) : nil }
        if let maxActiveHMMs { options.maxActiveHMMs = maxActiveHMMs > 0 ? maxActiveHMMs : nil }
        for (name, value) in decoderArguments ?? [:] { options.decoder.arguments[name] = value }
        return options
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _): return "\(key.stringValue) is missing"
        default: return "\(error)"
        }
    }
}

/// The noise suppressors by the names a profile and the command line use.
public enum NoiseSuppressorName: String, CaseIterable, Sendable {
    case webrtc, speex, off

    public var method: NoiseSuppressor.Method? {
        switch self {
        case .webrtc: .webRTC(.high)
        case .speex: .speex(maxAttenuationDB: 15)
        case .off: nil
        }
    }
}
