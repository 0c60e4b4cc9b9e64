import Foundation
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
            case .utterance(let utterance): kinds.append("utterance"); if let intent = utterance.intent { intents.append(intent.name) }
            case .overrun: kinds.append("overrun")
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

    @Test func stoppingIterationStopsListening() async throws {
        let speech = try TestAuthorization.speechRecognition()
        let started = Date()
        for await event in Listener.events(source: .pacedFile(Fixtures.demo.appendingPathComponent("start-pause-stop.wav")), speech: speech) {
            if case .utterance = event { break }
        }
        #expect(Date().timeIntervalSince(started) < 4)
    }
}
