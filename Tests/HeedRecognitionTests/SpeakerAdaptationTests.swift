import Foundation
import HeedAudio
import HeedTestSupport
import Testing
@testable import HeedRecognition

/// Enrollment on real decodes: Audio/enroll's synthetic voices and, where ../shared is present,
/// a human reader from the shared corpus.
@Suite(.serialized) struct SpeakerAdaptationTests {
    struct Recording {
        var samples: [Int16]
        var words: [String]
    }

    /// Audio/enroll/<voice>: twenty sentences, each a 16 kHz WAV, listed with their words.
    func recordings(of voice: String) throws -> [Recording] {
        let folder = Fixtures.audio.appendingPathComponent("enroll/\(voice)")
        let list = try String(contentsOf: folder.appendingPathComponent("enroll.txt"), encoding: .utf8)
        return try list.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            let samples = PCM.int16(from: try WAVFile(contentsOf: folder.appendingPathComponent(parts[0])).samples)
            let words = parts[1].lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" }).map(String.init)
            return Recording(samples: samples, words: words)
        }
    }

    /// The aligned log-likelihood per frame of each recording under the decoder's model as it is.
    func fit(_ recordings: [Recording], _ decoder: Decoder) throws -> Double {
        var probe = try SpeakerEnrollment(for: decoder)
        var total = 0.0
        for recording in recordings { total += try probe.add(recording.samples[...], saying: recording.words, with: decoder) }
        return total / Double(recordings.count)
    }

    /// A British voice: fifteen sentences teach the model, and the five it never heard then fit
    /// it better (measured: -149.1 -> -144.5 per frame). Held out, so the gain is the voice's,
    /// not a memory of the sentences.
    @Test func enrollmentFitsSentencesItDidNotHear() throws {
        let all = try recordings(of: "en_m3")
        #expect(all.count == 20)
        let (taught, heldOut) = (Array(all.prefix(15)), Array(all.suffix(5)))
        let decoder = try Decoder()
        var enrollment = try SpeakerEnrollment(for: decoder)
        for recording in taught { try enrollment.add(recording.samples[...], saying: recording.words, with: decoder) }
        #expect(enrollment.phrases == 15)
        let profile = enrollment.profile(for: decoder)
        #expect(profile.speechSeconds > 25 && profile.speechSeconds < 45, "\(profile.speechSeconds) s of speech")
        // Silence and fillers are the room's, not the speaker's: their codebooks stay put.
        let silence = try #require(decoder.phoneIndex("SIL"))
        #expect(profile.shifts[silence * profile.dimensions..<(silence + 1) * profile.dimensions].allSatisfy { $0 == 0 })
        let before = try fit(heldOut, decoder)
        try decoder.apply(profile)
        let after = try fit(heldOut, decoder)
        #expect(after > before + 2, "held-out fit \(before) -> \(after) per frame")
    }

    /// A real human reader (LibriVox, the shared corpus), each passage in turn held out while
    /// the other four teach: every held-out passage fits better, though by much less than a
    /// synthetic voice (measured: 0.13-0.30 per frame). He is an American reader, near the model.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func enrollmentFitsAHumanReader() throws {
        let folder = Fixtures.corpus.appendingPathComponent("librivox")
        let names = ["0870", "0880", "0890", "0920", "0930"].map { "sense_and_sensibility_01_austen_64kb-\($0)" }
        let all = try names.map { name in
            let text = try String(contentsOf: folder.appendingPathComponent(name + ".txt"), encoding: .utf8)
            let samples = PCM.int16(from: try WAVFile(contentsOf: folder.appendingPathComponent(name + ".wav")).samples)
            return Recording(samples: samples, words: text.split(whereSeparator: \.isWhitespace).map(String.init))
        }
        for heldOut in all.indices {
            let decoder = try Decoder()
            var enrollment = try SpeakerEnrollment(for: decoder)
            for (index, recording) in all.enumerated() where index != heldOut {
                try enrollment.add(recording.samples[...], saying: recording.words, with: decoder)
            }
            let profile = enrollment.profile(for: decoder)
            let before = try fit([all[heldOut]], decoder)
            try decoder.apply(profile)
            let after = try fit([all[heldOut]], decoder)
            #expect(after > before + 0.08, "\(names[heldOut]) held out: fit \(before) -> \(after) per frame")
            #expect(profile.largestShift < 15, "largest shift \(profile.largestShift)")
        }
    }

    /// A recording with another sentence's words is refused, and teaches nothing.
    @Test func wrongWordsAreRefused() throws {
        let all = try recordings(of: "en_f4")
        let decoder = try Decoder()
        var enrollment = try SpeakerEnrollment(for: decoder)
        #expect(throws: RecognitionError.self) { try enrollment.add(all[0].samples[...], saying: all[1].words, with: decoder) }
        #expect(enrollment.phrases == 0 && enrollment.speechFrames == 0)
        try enrollment.add(all[0].samples[...], saying: all[0].words, with: decoder)
        #expect(enrollment.phrases == 1)
    }

    /// A profile for another model (another shape, or the same shape but other Gaussians), or one
    /// with values that are not numbers, is refused, and the model is left as it was.
    @Test func aProfileForAnotherModelIsRefused() throws {
        let decoder = try Decoder()
        let trained = decoder.modelFingerprint
        let shifts = [Float](repeating: 0.5, count: 42 * 39)
        let profiles = [
            SpeakerProfile(model: trained, codebooks: 2, dimensions: 39, shifts: [Float](repeating: 1, count: 78), phrases: 1, speechSeconds: 1),
            SpeakerProfile(model: "0", codebooks: 42, dimensions: 39, shifts: shifts, phrases: 1, speechSeconds: 1),
        ]
        for profile in profiles {
            let error = #expect(throws: RecognitionError.self) { try decoder.apply(profile) }
            #expect(error?.message.contains("another acoustic model") == true)
            #expect(decoder.modelFingerprint == trained)
        }
        var notNumbers = shifts
        notNumbers[7] = .nan
        let error = #expect(throws: RecognitionError.self) {
            try decoder.apply(SpeakerProfile(model: trained, codebooks: 42, dimensions: 39, shifts: notNumbers, phrases: 1, speechSeconds: 1))
        }
        #expect(error?.message.contains("not numbers") == true)
        #expect(decoder.modelFingerprint == trained)
    }

    /// A second profile replaces the first rather than stacking on it (learning applies a new one
    /// after every command): the model ends where the second alone would put it.
    @Test func aSecondProfileReplacesTheFirst() throws {
        let decoder = try Decoder(), fresh = try Decoder()
        let trained = decoder.modelFingerprint
        let first = SpeakerProfile(model: trained, codebooks: 42, dimensions: 39, shifts: [Float](repeating: 0.5, count: 42 * 39),
                                   phrases: 1, speechSeconds: 1)
        let second = SpeakerProfile(model: trained, codebooks: 42, dimensions: 39,
                                    shifts: (0..<42 * 39).map { Float($0 % 7) * 0.25 - 0.75 }, phrases: 2, speechSeconds: 2)
        try decoder.apply(first)
        #expect(decoder.modelFingerprint != trained)
        #expect(decoder.trainedModelFingerprint == trained)
        try decoder.apply(second)
        try fresh.apply(second)
        let decoderMeans = decoder.parameters(), freshMeans = fresh.parameters()
        #expect(decoderMeans.count == freshMeans.count && !decoderMeans.isEmpty)
        let furthest = zip(decoderMeans, freshMeans).map { abs($0 - $1) }.max() ?? .infinity
        #expect(furthest < 1e-5, "means differ by up to \(furthest)")
    }

    /// With a speaker-wide shift (as learning from commands has), a phone not yet heard moves with
    /// the speaker: by what all the phones heard have in common, not by nothing (else the phones
    /// heard win every frame). Without it (enrollment), it stays. Silence stays put either way.
    @Test func phonesNotYetHeardMoveWithTheSpeaker() throws {
        let sentence = try #require(try recordings(of: "en_m3").first)  // "the birch canoe slid on the smooth planks": no ZH
        let decoder = try Decoder()
        var enrollment = try SpeakerEnrollment(for: decoder)
        enrollment.globalPriorFrames = 20
        try enrollment.add(sentence.samples[...], saying: sentence.words, with: decoder)
        let zh = try #require(decoder.phoneIndex("ZH")), silence = try #require(decoder.phoneIndex("SIL"))
        let b = try #require(decoder.phoneIndex("B"))
        func row(_ profile: SpeakerProfile, _ codebook: Int) -> ArraySlice<Float> {
            profile.shifts[codebook * profile.dimensions..<(codebook + 1) * profile.dimensions]
        }
        let withSpeaker = enrollment.profile(for: decoder)
        #expect(row(withSpeaker, zh).contains { abs($0) > 0.1 }, "\(row(withSpeaker, zh))")
        #expect(row(withSpeaker, silence).allSatisfy { $0 == 0 })
        // Heard in a few frames, B moves part-way from the speaker-wide shift to its own.
        #expect(row(withSpeaker, b) != row(withSpeaker, zh))
        enrollment.globalPriorFrames = nil
        let alone = enrollment.profile(for: decoder)
        #expect(row(alone, zh).allSatisfy { $0 == 0 })
        #expect(row(alone, silence).allSatisfy { $0 == 0 })
    }

    /// Learning goes on across profiles: a profile's kept statistics continue where it left off.
    /// Without the model moved, ten sentences and then five more give exactly the profile of all
    /// fifteen at once. With the ten's profile applied in between (as `learnsSpeaker` does), the
    /// statistics are still taken from the trained means (taken from the moved means, the five
    /// would only add what is left over, and the shifts would shrink).
    @Test func learningContinuesFromAKeptProfile() throws {
        let all = Array(try recordings(of: "en_m3").prefix(15))
        let decoder = try Decoder()
        var once = try SpeakerEnrollment(for: decoder)
        for recording in all { try once.add(recording.samples[...], saying: recording.words, with: decoder) }
        let whole = once.profile(for: decoder)

        var first = try SpeakerEnrollment(for: decoder)
        for recording in all.prefix(10) { try first.add(recording.samples[...], saying: recording.words, with: decoder) }
        let ten = first.profile(for: decoder)
        #expect(ten.statistics != nil)
        var resumed = try SpeakerEnrollment(for: decoder, continuing: ten)
        #expect(resumed.phrases == 10)
        for recording in all.suffix(5) { try resumed.add(recording.samples[...], saying: recording.words, with: decoder) }
        #expect(resumed.profile(for: decoder).shifts == whole.shifts)

        let moved = try Decoder()
        try moved.apply(ten)
        var learning = try SpeakerEnrollment(for: moved, continuing: ten)
        for recording in all.suffix(5) { try learning.add(recording.samples[...], saying: recording.words, with: moved) }
        let learned = learning.profile(for: moved)
        #expect(learned.model == whole.model && learned.phrases == 15)
        // Aligned by the moved model, the five's frames fall to phones a little differently, so
        // the profile is not the same; but it is much closer to all fifteen's than the ten's is
        // (mean difference per shift measured 0.48 against 0.75, and 0.65 with the five taken from
        // the moved means; the shifts themselves average 2.8).
        func meanDifference(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).map { abs($0 - $1) }.reduce(0, +) / Float(a.count) }
        let learnedOff = meanDifference(learned.shifts, whole.shifts), tenOff = meanDifference(ten.shifts, whole.shifts)
        #expect(learnedOff < 0.75 * tenOff, "learned \(learnedOff) from all fifteen's, the ten \(tenOff)")

        // A profile without statistics (made before they were kept), or for another model, cannot be learned on.
        var old = ten
        old.statistics = nil
        #expect(throws: RecognitionError.self) { try SpeakerEnrollment(for: decoder, continuing: old) }
        var other = ten
        other.model = "0"
        #expect(throws: RecognitionError.self) { try SpeakerEnrollment(for: decoder, continuing: other) }
    }
}
