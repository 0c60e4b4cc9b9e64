import Foundation
import HeedTestSupport
import Testing
@testable import Heed
import HeedRecognition
import HeedAudio
@testable import HeedRecognition

/// Learning the speaker from their own commands (`RecognizerOptions.learnsSpeaker`), on real
/// decodes of Audio/workshop: nothing tells the recognizer what was said.
@Suite(.serialized) struct SpeakerLearningTests {
    static let workshop = Fixtures.root.appendingPathComponent("Models/contexts/workshop.yml")

    /// Audio/workshop's commands by `voice` at `speed` words a minute, with the words said (the
    /// comment after each entry of suite.yml).
    func commands(of voice: String, speed: Int) throws -> [(file: URL, words: [String])] {
        let folder = Fixtures.audio.appendingPathComponent("workshop")
        return try String(contentsOf: folder.appendingPathComponent("suite.yml"), encoding: .utf8).split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "#", maxSplits: 1)
            guard parts.count == 2, let name = parts[0].split(separator: ":").first?.trimmingCharacters(in: .whitespaces),
                  name.hasSuffix("-\(voice)-\(speed).wav") else { return nil }
            return (folder.appendingPathComponent(name), parts[1].split(separator: " ").map(String.init))
        }
    }

    func recognizer(learning: Bool = true, minConfidence: Double? = nil) throws -> CommandRecognizer {
        var options = RecognizerOptions()
        options.learnsSpeaker = learning
        if let minConfidence { options.speakerLearningMinConfidence = minConfidence }
        return try CommandRecognizer(vocabulary: .commands(.builtins, contexts: [Context(contentsOf: Self.workshop)]),
                                     options: options, authorization: TestAuthorization.speechRecognition())
    }

    /// How well the recordings fit their words under `decoder`'s model (aligned log-likelihood per frame).
    func fit(_ recordings: [(file: URL, words: [String])], _ decoder: Decoder) throws -> Double {
        var probe = try SpeakerEnrollment(for: decoder)
        var total = 0.0
        for recording in recordings {
            let samples = PCM.int16(from: try WAVFile(contentsOf: recording.file).samples)
            total += try probe.add(samples[...], saying: recording.words, with: decoder)
        }
        return total / Double(recordings.count)
    }

    /// en_m3, a British voice, gives the workshop its twenty-four commands at 130 words a minute.
    /// The recognizer learns from those it understands surely, and the same commands said faster,
    /// which it never heard, then fit the model better (measured: -146.7 -> -142.5 per frame; floor +2).
    @Test func commandsUnderstoodInQuietTeachTheModelTheirSpeaker() throws {
        let slow = try commands(of: "en_m3", speed: 130), fast = try commands(of: "en_m3", speed: 175)
        #expect(slow.count == 24 && fast.count == 24)
        let learner = try recognizer()
        #expect(learner.learnedSpeaker == nil)
        var understood = 0
        for command in slow { understood += try learner.recognize(file: command.file).filter(\.understood).count }
        let learned = try #require(learner.learnedSpeaker)
        #expect(learned.phrases >= 12 && learned.phrases <= understood, "learned from \(learned.phrases) of \(understood) understood")
        #expect(learned.statistics != nil)
        // A decoder that knows the context's own words ("extractor").
        let decoder = try recognizer(learning: false).decoder
        let before = try fit(fast, decoder)
        try decoder.apply(learned)
        let after = try fit(fast, decoder)
        #expect(after > before + 2, "held-out fit \(before) -> \(after) per frame")
    }

    /// A few commands teach a few phones: until ten are learned the model is left as it is, and
    /// the demo's recordings are heard exactly as without learning (moved after a "cancel" and a
    /// "done", it no longer understood "pause").
    @Test func aFewCommandsDoNotMoveTheModel() throws {
        let files = Fixtures.wavs(in: Fixtures.demo)
        #expect(files.count >= 8)
        let plain = try recognizer(learning: false), learner = try recognizer()
        for file in files {
            let expected = try plain.recognize(file: file).map(\.intent)
            #expect(try learner.recognize(file: file).map(\.intent) == expected, "\(file.lastPathComponent)")
        }
        #expect((learner.learnedSpeaker?.phrases ?? 0) < learner.options.speakerLearningMinPhrases)
        #expect(learner.decoder.speakerShifts == nil)
    }

    /// Only what is surely the speaker's own command is learned from: not a command heard through
    /// noise (it would teach the model the room), not speech that is no command, and not a command
    /// understood less surely than the floor.
    @Test func noiseNonCommandsAndUnsureCommandsTeachNothing() throws {
        let command = Fixtures.audio.appendingPathComponent("workshop/emergencyStop-23-en-us-130.wav")
        let clean = try WAVFile(contentsOf: command).samples
        let noise = try WAVFile(contentsOf: Fixtures.audio.appendingPathComponent("noise/pink.wav")).samples
        let noisy = PCM.int16(from: Perturbation.mix(speech: clean, noise: noise, snr: 12, sampleRate: 16000, seed: 1))

        let learner = try recognizer()
        let heard = try learner.recognize(samples: noisy)
        #expect(heard.contains { $0.understood }, "the noisy command is understood, so only the noise keeps it from being learned")
        let none = try learner.recognize(file: Fixtures.audio.appendingPathComponent("workshop/none-01-en_m3.wav"))
        #expect(!none.contains { $0.understood })
        #expect(learner.learnedSpeaker == nil)

        let unsure = try recognizer(minConfidence: 1.01)
        #expect(try unsure.recognize(file: command).contains { $0.understood })
        #expect(unsure.learnedSpeaker == nil)

        let off = try recognizer(learning: false)
        #expect(try off.recognize(file: command).contains { $0.understood })
        #expect(off.learnedSpeaker == nil)
        // The same clean command is learned from when learning is on.
        let on = try recognizer()
        _ = try on.recognize(file: command)
        #expect(on.learnedSpeaker?.phrases == 1)
    }
}
