import Foundation
import Synchronization
import HeedTestSupport
import Testing
@testable import Heed

@Suite struct ListenerTests {
    /// The library's live API: events as an AsyncSequence, from a recording paced in real time.
    @Test func eventsArriveAsAnAsyncSequence() async throws {
        let speech = try TestAuthorization.speechRecognition()
        var intents: [String] = []
        var kinds: [String] = []
        for await event in Listener.events(source: .pacedFile(Fixtures.demo.appendingPathComponent("start-pause-stop.wav")), speech: speech) {
            switch event {
            case .listening: kinds.append("listening")
            case .speechStart: kinds.append("speech-start")
            case .partial(_, let transcript): kinds.append("partial"); #expect(!transcript.isEmpty)
            case .utterance(let utterance): kinds.append("utterance"); if let intent = utterance.intent { intents.append(intent.name) }
            case .overrun: kinds.append("overrun")
            case .dialogue: kinds.append("dialogue")
            case .shortcuts: kinds.append("shortcuts")
            case .deviceLost, .deviceRestored: kinds.append("device")
            case .level(let db): #expect(db <= 0 && db > -130)
            case .stopped(let error, _, let dropped, _):
                kinds.append("stopped")
                #expect(error == nil)
                #expect(dropped == 0)
            }
        }
        #expect(intents == ["start", "pause", "stop"])
        #expect(kinds.first == "listening" && kinds.last == "stopped")
        #expect(!kinds.contains("overrun"))
    }

    /// Asking a listener to stop ends it where it is, not at the end of the input.
    @Test func stopRequestEndsListeningEarly() throws {
        let recognizer = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
        let listener = Listener(source: .pacedFile(Fixtures.demo.appendingPathComponent("start-pause-stop.wav")), recognizer: recognizer)
        let heardOne = Atomic<Bool>(false)
        var stoppedAt: Double?
        var intents: [String] = []
        try listener.run(shouldStop: { heardOne.load(ordering: .relaxed) }) { event in
            if case .utterance(let utterance) = event, let intent = utterance.intent {
                intents.append(intent.name)
                heardOne.store(true, ordering: .relaxed)
            }
            if case .stopped(let error, let seconds, _, _) = event {
                #expect(error == nil)
                stoppedAt = seconds
            }
        }
        #expect(intents.first == "start")
        // The recording is 5.71 s long; "pause" starts at 2.4 s.
        #expect((stoppedAt ?? 99) < 2.4, "stopped at \(stoppedAt ?? -1) s of audio")
    }
}
