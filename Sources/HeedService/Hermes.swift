import Foundation
import Heed

/// The Rhasspy/Snips Hermes messages Heed publishes, as (topic, JSON payload).
public enum Hermes {
    /// What an utterance says on the bus: `hermes/asr/textCaptured`, then
    /// `hermes/intent/<intentName>` or `hermes/nlu/intentNotRecognized`.
    public static func messages(for utterance: Utterance, siteID: String, sessionID: String) -> [(topic: String, payload: [UInt8])] {
        var messages = [("hermes/asr/textCaptured", json([
            "text": utterance.transcript, "likelihood": utterance.confidence, "seconds": utterance.end - utterance.start,
            "siteId": siteID, "sessionId": sessionID, "wakewordId": NSNull(),
        ]))]
        if utterance.understood, let intent = utterance.intent {
            let slots: [[String: Any]] = intent.slots.sorted { $0.key < $1.key }.map { name, value in
                ["entity": name, "slotName": name, "rawValue": value, "confidence": 1.0,
                 "value": ["kind": "Unknown", "value": value]]
            }
            messages.append(("hermes/intent/\(topicSafe(intent.name))", json([
                "input": utterance.transcript,
                "intent": ["intentName": intent.name, "confidenceScore": utterance.confidence],
                "slots": slots, "siteId": siteID, "sessionId": sessionID, "customData": NSNull(),
                "asrConfidence": utterance.confidence,
            ])))
        } else {
            messages.append(("hermes/nlu/intentNotRecognized", json([
                "input": utterance.transcript, "siteId": siteID, "sessionId": sessionID, "customData": NSNull(),
            ])))
        }
        return messages
    }

    /// `hermes/hotword/<wakewordId>/detected`, as Rhasspy's wake services publish it.
    public static func wake(phrase: String, siteID: String, sessionID: String) -> (topic: String, payload: [UInt8]) {
        let id = topicSafe(phrase.lowercased().replacingOccurrences(of: " ", with: "_"))
        return ("hermes/hotword/\(id)/detected", json([
            "modelId": phrase, "modelVersion": "", "modelType": "personal", "currentSensitivity": 1.0,
            "siteId": siteID, "sessionId": sessionID, "sendAudioCaptured": NSNull(),
        ]))
    }

    /// The hub's subscription, and the site an audio frame's topic names.
    public static let audioFrames = "hermes/audioServer/+/audioFrame"

    public static func siteOfAudioFrame(_ topic: String) -> String? {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "hermes", parts[1] == "audioServer", parts[3] == "audioFrame", !parts[2].isEmpty else { return nil }
        return String(parts[2])
    }

    /// MQTT topic levels cannot hold the wildcards or the separator.
    static func topicSafe(_ name: String) -> String {
        String(name.map { "/+#".contains($0) ? "_" : $0 })
    }

    static func json(_ object: [String: Any]) -> [UInt8] {
        [UInt8]((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8))
    }
}
