import Foundation
import HeedTestSupport
import Testing
@testable import Heed
import HeedRecognition

/// Enrollment through the library, as an app would use it: `Enrollment` makes the profile,
/// `RecognizerOptions.speaker` applies it.
@Suite(.serialized) struct EnrollmentPipelineTests {
    static let workshop = Fixtures.root.appendingPathComponent("Models/contexts/workshop.yml")

    func profile(of voice: String) throws -> SpeakerProfile {
        let enrollment = try Enrollment(authorization: TestAuthorization.speechRecognition())
        let folder = Fixtures.audio.appendingPathComponent("enroll/\(voice)")
        for line in try String(contentsOf: folder.appendingPathComponent("enroll.txt"), encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            try enrollment.add(file: folder.appendingPathComponent(parts[0]), saying: parts[1])
        }
        #expect(enrollment.phrases == 20)
        return enrollment.profile()
    }

    /// Decoded as heard: what is measured is what the profile does to the model.
    func intents(_ file: String, speaker: SpeakerProfile?) throws -> [Intent?] {
        var options = RecognizerOptions()
        options.speaker = speaker
        let recognizer = try CommandRecognizer(vocabulary: .commands(.builtins, contexts: [Context(contentsOf: Self.workshop)]),
                                               options: options, authorization: TestAuthorization.speechRecognition())
        return try recognizer.recognize(file: Fixtures.audio.appendingPathComponent("workshop/\(file)")).filter(\.understood).map(\.intent)
    }

    /// en_f4, a British voice, says "turn off the band saw" and "shut down the lathe": as trained,
    /// the model does not hear the first right; enrolled from her twenty sentences, both are right.
    @Test func anEnrolledVoiceIsHeardRight() throws {
        let speaker = try profile(of: "en_f4")
        let off = Intent(name: "machineOff", slots: ["machine": "band saw"])
        #expect(try intents("machineOff-05-en_f4-175.wav", speaker: nil) != [off])
        #expect(try intents("machineOff-05-en_f4-175.wav", speaker: speaker) == [off])
        #expect(try intents("machineOff-07-en_f4-175.wav", speaker: speaker) == [Intent(name: "machineOff", slots: ["machine": "lathe"])])
    }

    /// The recordings must be quiet: pink noise alone is refused before anything is decoded.
    @Test func aNoisyRecordingIsRefused() throws {
        let enrollment = try Enrollment(authorization: TestAuthorization.speechRecognition())
        let error = #expect(throws: HeedError.self) {
            try enrollment.add(file: Fixtures.audio.appendingPathComponent("noise/pink.wav"), saying: "the birch canoe")
        }
        #expect(error?.kind == .badInput && error?.message.contains("too noisy to enroll with") == true, "\(String(describing: error))")
        #expect(enrollment.phrases == 0)
    }
}
