import Foundation
import Heed
import HeedService
import Testing

@Suite struct HermesTests {
    func object(_ bytes: [UInt8]) throws -> [String: Any] { try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) }

    @Test func anIntentIsPublishedAsRhasspyDoes() throws {
        let utterance = Utterance(start: 1, end: 3, transcript: "a large latte", intent: Intent(name: "orderDrink", slots: ["size": "large", "coffeeDrink": "latte"]),
                                  understood: true, confidence: 0.93)
        let messages = Hermes.messages(for: utterance, siteID: "kitchen", sessionID: "s1")
        #expect(messages.map(\.topic) == ["hermes/asr/textCaptured", "hermes/intent/orderDrink"])
        let intent = try object(messages[1].payload)
        #expect(intent["input"] as? String == "a large latte")
        #expect(intent["siteId"] as? String == "kitchen" && intent["sessionId"] as? String == "s1")
        let named = try #require(intent["intent"] as? [String: Any])
        #expect(named["intentName"] as? String == "orderDrink" && named["confidenceScore"] as? Double == 0.93)
        let slots = try #require(intent["slots"] as? [[String: Any]])
        #expect(slots.map { $0["slotName"] as? String } == ["coffeeDrink", "size"])
        #expect(slots.map { $0["entity"] as? String } == ["coffeeDrink", "size"])
        #expect(slots.map { ($0["value"] as? [String: Any])?["value"] as? String } == ["latte", "large"])
        #expect(slots.map { $0["rawValue"] as? String } == ["latte", "large"])
        let captured = try object(messages[0].payload)
        #expect(captured["text"] as? String == "a large latte" && captured["seconds"] as? Double == 2)
    }

    @Test func whatIsNotUnderstoodIsSaid() throws {
        let utterance = Utterance(start: 0, end: 1, transcript: "", intent: nil, understood: false, confidence: 0.1)
        let messages = Hermes.messages(for: utterance, siteID: "a", sessionID: "b")
        #expect(messages.map(\.topic) == ["hermes/asr/textCaptured", "hermes/nlu/intentNotRecognized"])
        #expect(try object(messages[1].payload)["siteId"] as? String == "a")
    }

    @Test func audioFrameTopicsNameTheirSite() {
        #expect(Hermes.siteOfAudioFrame("hermes/audioServer/kitchen/audioFrame") == "kitchen")
        #expect(Hermes.siteOfAudioFrame("hermes/audioServer//audioFrame") == nil)
        #expect(Hermes.siteOfAudioFrame("hermes/audioServer/a/b/audioFrame") == nil)
        #expect(Hermes.wake(phrase: "hey barista", siteID: "k", sessionID: "s").topic == "hermes/hotword/hey_barista/detected")
    }
}
