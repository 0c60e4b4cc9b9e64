import CPTMScorer
import Foundation

/// What enrollment learned about one speaker: how far each phone's Gaussians move towards the way
/// they say it (Sources/CPTMScorer/speaker_adaptation.c). Stored as JSON by `heed enroll`.
public struct SpeakerProfile: Codable, Equatable, Sendable {
    /// The trained model the shifts belong to (a hash of its means and variances, hex).
    public var model: String
    /// Its shape: codebooks x feature dimensions.
    public var codebooks: Int
    public var dimensions: Int
    /// codebooks x dimensions values, codebook by codebook.
    public var shifts: [Float]
    /// How much speech they were estimated from.
    public var phrases: Int
    public var speechSeconds: Double
    /// What the shifts were computed from (per codebook: precision-weighted distances, precisions
    /// and frames), so learning can go on from here (`SpeakerEnrollment(for:continuing:)`); nil
    /// in profiles written before it was kept.
    public var statistics: [Double]?

    public init(model: String, codebooks: Int, dimensions: Int, shifts: [Float], phrases: Int, speechSeconds: Double,
                statistics: [Double]? = nil) {
        self.model = model
        self.codebooks = codebooks
        self.dimensions = dimensions
        self.shifts = shifts
        self.phrases = phrases
        self.speechSeconds = speechSeconds
        self.statistics = statistics
    }

    /// The largest shift of any phone and feature, in the model's feature units (for a report;
    /// espeak-ng's voices reach 21-35, a human reader near the model 7).
    public var largestShift: Float { shifts.map(abs).max() ?? 0 }
}

/// Speaker statistics gathered from phrases of known text, one `add` per recording.
public struct SpeakerEnrollment: Sendable {
    fileprivate var statistics: [Double]
    public private(set) var phrases = 0
    public private(set) var speechFrames = 0
    /// How many frames of a phone it takes for its shift to go half-way to what they say
    /// (a MAP prior): phones heard little stay near the model.
    public var priorFrames = 20.0
    /// Pull phones heard little (or not at all) towards the speaker-wide shift, what all the phones
    /// heard have in common, itself worth this many frames against none (nil: towards no shift).
    /// Learning from commands needs it: a few commands teach a few phones, which then fit the
    /// speaker better than all the others and win their frames. Enrollment's sentences teach
    /// every phone, and lost a few commands with it (BENCHMARKS.md in git history, "Learning the
    /// speaker").
    public var globalPriorFrames: Double?
    /// A recording whose alignment to its words fits worse than the best phones could by more
    /// than this (natural log per frame) is not of those words. Measured: right words 1.0-2.9
    /// on Audio/enroll's five voices, 1.1-1.6 on the LibriVox reader of the shared corpus; a
    /// sentence given the next one's words 3.05 (most such fail in the decoder before this check).
    public var maxShortfallPerFrame = 3.5

    public init(for decoder: Decoder) throws(RecognitionError) {
        let count = heed_ptm_speaker_statistics_count(decoder.pointer)
        guard count > 0 else {
            throw RecognitionError(kind: .model, function: "heed_ptm_speaker_statistics_count",
                                   message: "speaker adaptation needs a PTM acoustic model scored by Heed's scorer (like Debian's en-us)")
        }
        statistics = [Double](repeating: 0, count: count)
    }

    /// Goes on learning from where `profile` left off (one made for this decoder's model, with its
    /// statistics kept).
    public init(for decoder: Decoder, continuing profile: SpeakerProfile) throws(RecognitionError) {
        try self.init(for: decoder)
        guard profile.model == decoder.trainedModelFingerprint, let kept = profile.statistics, kept.count == statistics.count,
              kept.allSatisfy(\.isFinite) else {
            throw RecognitionError(kind: .model, function: "heed_ptm_accumulate_speaker",
                                   message: profile.statistics == nil
                                       ? "the speaker profile keeps no statistics to learn from (it was made by an older heed); enroll again"
                                       : "the speaker profile was made for another acoustic model; enroll again with this model")
        }
        statistics = kept
        phrases = profile.phrases
        speechFrames = Int((profile.speechSeconds * Double(decoder.frameRate)).rounded())
    }

    /// Adds a recording of `words` (said in a quiet room; the audio as the decoder takes it), and
    /// returns how well the model, as it is now, fits it: the aligned log-likelihood per frame.
    /// Throws when the words are not in the dictionary or the recording does not fit them.
    @discardableResult
    public mutating func add(_ samples: ArraySlice<Int16>, saying words: [String], with decoder: Decoder) throws(RecognitionError) -> Double {
        let frames = try decoder.alignedFrames(of: samples, saying: words)
        var phones: [String] = ["SIL"], optional: [UInt8] = [1]
        for word in frames.words {
            guard let pronunciation = decoder.pronunciation(of: word) else {
                throw RecognitionError(kind: .dictionary, function: "enroll", message: "not in the pronunciation dictionary: \(word)")
            }
            for phone in pronunciation.split(separator: " ") {
                phones.append(String(phone))
                optional.append(0)
            }
            phones.append("SIL")
            optional.append(1)
        }
        var fit = heed_speaker_fit()
        let applied = decoder.speakerShifts
        let used = withCStrings(phones) { names in
            frames.features.withUnsafeBufferPointer { features in
                // NULL when the model carries no speaker's shifts.
                (applied ?? []).withUnsafeBufferPointer { shifts in
                    heed_ptm_accumulate_speaker(decoder.pointer, &statistics, features.baseAddress, frames.count,
                                                names, optional, Int32(phones.count), maxShortfallPerFrame,
                                                applied == nil ? nil : shifts.baseAddress, &fit)
                }
            }
        }
        if used == HEED_SPEAKER_MISMATCH {
            throw RecognitionError(kind: .decoding, function: "heed_ptm_accumulate_speaker",
                                   message: "the recording does not sound like \"\(words.joined(separator: " "))\"")
        }
        if used <= HEED_SPEAKER_UNKNOWN_PHONE {
            let phone = phones[Int(HEED_SPEAKER_UNKNOWN_PHONE) - used]
            throw RecognitionError(kind: .model, function: "heed_ptm_accumulate_speaker", message: "the acoustic model has no phone '\(phone)'")
        }
        guard used >= 0 else {
            throw RecognitionError(kind: .decoding, function: "heed_ptm_accumulate_speaker",
                                   message: "the recording is too short for \"\(words.joined(separator: " "))\"")
        }
        phrases += 1
        speechFrames += used
        return fit.log_likelihood
    }

    /// The profile the phrases so far call for.
    public func profile(for decoder: Decoder) -> SpeakerProfile {
        let count = heed_ptm_speaker_shift_count(decoder.pointer)
        let dimensions = Int(heed_ptm_feature_dimensions(decoder.pointer))
        let shifts = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            statistics.withUnsafeBufferPointer { heed_ptm_speaker_shifts(decoder.pointer, $0.baseAddress, priorFrames, globalPriorFrames ?? -1, buffer.baseAddress) }
            initialized = count
        }
        return SpeakerProfile(model: decoder.trainedModelFingerprint, codebooks: count / max(dimensions, 1), dimensions: dimensions, shifts: shifts,
                              phrases: phrases, speechSeconds: Double(speechFrames) / Double(decoder.frameRate), statistics: statistics)
    }
}

extension Decoder {
    /// The features of `samples` as the decoder scored them while decoding them against `words`
    /// alone, and the words (with the pronunciation variant chosen, as in "start(2)") it heard.
    func alignedFrames(of samples: ArraySlice<Int16>, saying words: [String]) throws(RecognitionError)
        -> (features: [Float], count: Int, words: [String]) {
        let previous = selectedSearch
        var grammar = Grammar()
        grammar.addPhrase(words)
        try add(grammar, named: Self.enrollmentSearch)
        try select(Self.enrollmentSearch)
        defer { if let previous { try? select(previous) } }
        let dimensions = Int(heed_ptm_feature_dimensions(pointer))
        guard heed_ptm_begin_recording(pointer) == 1 else {
            throw RecognitionError(kind: .model, function: "heed_ptm_begin_recording", message: "speaker adaptation needs Heed's PTM scorer")
        }
        let hypothesis: Hypothesis
        do {
            try startUtterance()
            try samples.withUnsafeBufferPointer { (buffer) throws(RecognitionError) in try process(buffer, wholeUtterance: true) }
            hypothesis = try endUtterance(alternatives: { _ in false })
        } catch {
            _ = heed_ptm_end_recording(pointer, nil, 0)
            throw error
        }
        // The decoder may count a frame more than it scored (the last, at the end of the utterance).
        var recorded = 0
        let features = [Float](unsafeUninitializedCapacity: hypothesis.frameCount * dimensions) { buffer, initialized in
            recorded = min(heed_ptm_end_recording(pointer, buffer.baseAddress, hypothesis.frameCount), hypothesis.frameCount)
            initialized = recorded * dimensions
        }
        guard hypothesis.reachedFinalState, recorded > 0 else {
            throw RecognitionError(kind: .decoding, function: "enroll",
                                   message: "the recording does not sound like \"\(words.joined(separator: " "))\"")
        }
        return (features, recorded, hypothesis.spokenWords.map(\.word))
    }

    static let enrollmentSearch = "heed-enrollment"

    /// Which codebook (row of a profile's shifts) a context-independent phone has; nil if none.
    func phoneIndex(_ phone: String) -> Int? {
        let index = heed_ptm_phone_codebook(pointer, phone)
        return index < 0 ? nil : Int(index)
    }

    /// The fingerprint of the model's Gaussians as they are now.
    var modelFingerprint: String { String(heed_ptm_model_fingerprint(pointer), radix: 16) }

    /// The trained model's fingerprint (see `SpeakerProfile.model`), from before any speaker moved it.
    var trainedModelFingerprint: String { trainedFingerprint ?? modelFingerprint }

    /// Moves the model's Gaussians to `profile`'s speaker: from now on every decode, and every
    /// noise adaptation, starts from the moved model. A profile fits only the trained model it was
    /// made from; it replaces the speaker applied before, if any (a profile learned further).
    public func apply(_ profile: SpeakerProfile) throws(RecognitionError) {
        let count = heed_ptm_speaker_shift_count(pointer)
        guard count > 0 else {
            throw RecognitionError(kind: .model, function: "heed_ptm_shift_means",
                                   message: "speaker profiles need Heed's own Gaussian scorer (not --stock-gaussians) and a PTM acoustic model like Debian's en-us")
        }
        restoreAcousticModel()
        guard profile.shifts.count == count, profile.dimensions == Int(heed_ptm_feature_dimensions(pointer)),
              profile.model == trainedModelFingerprint else {
            throw RecognitionError(kind: .model, function: "heed_ptm_shift_means",
                                   message: "the speaker profile was made for another acoustic model; enroll again with this model")
        }
        guard profile.shifts.allSatisfy(\.isFinite) else {
            throw RecognitionError(kind: .model, function: "heed_ptm_shift_means", message: "the speaker profile has values that are not numbers")
        }
        // The means move by what the new shifts add to the old, so the trained means are never
        // needed again (and a profile replaced many times drifts only by float rounding).
        let change = speakerShifts.map { old in zip(profile.shifts, old).map { $0 - $1 } } ?? profile.shifts
        trainedFingerprint = trainedModelFingerprint
        change.withUnsafeBufferPointer { heed_ptm_shift_means(pointer, $0.baseAddress) }
        speakerShifts = profile.shifts
        resetTrainedGaussians()
    }
}

private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
