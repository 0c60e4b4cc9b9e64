import Foundation
import HeedTestSupport
import Testing
@testable import Heed

/// Contexts through the whole pipeline, on recordings.
@Suite(.serialized) struct ContextPipelineTests {
    static let coffee = Fixtures.root.appendingPathComponent("Models/contexts/coffee.yml")

    /// A recognizer for `Models/contexts/NAME.yml` alone (no built-ins), with `options`.
    static func recognizer(context name: String, options: RecognizerOptions = .init()) throws -> CommandRecognizer {
        let context = try Context(contentsOf: Fixtures.root.appendingPathComponent("Models/contexts/\(name).yml"))
        return try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [context]), options: options,
                                     authorization: TestAuthorization.speechRecognition())
    }

    /// "The laser is too bright" is forced onto "set the laser cutter to low" by the workshop
    /// grammar: every decode finds a command in it, and only the detector tells. At sensitivity 1
    /// (accept whatever is decoded) it is taken; at the default it is turned away, while real
    /// commands are still heard.
    @Test func theDetectorTurnsAwaySpeechForcedOntoACommand() throws {
        func recognizer(sensitivity: Double) throws -> CommandRecognizer {
            var options = RecognizerOptions()
            options.sensitivity = sensitivity
            return try Self.recognizer(context: "workshop", options: options)
        }
        let everything = try recognizer(sensitivity: 1), detecting = try recognizer(sensitivity: RecognizerOptions().sensitivity)
        let directory = Fixtures.audio.appendingPathComponent("workshop")
        let nearMiss = directory.appendingPathComponent("none-16-en_m3.wav")
        #expect(try everything.recognize(file: nearMiss).contains { $0.intent?.name == "setSpeed" }, "no longer forced onto a command")
        let turnedAway = try detecting.recognize(file: nearMiss)
        #expect(turnedAway.allSatisfy { !$0.understood })
        #expect(turnedAway.contains { $0.detection.map { !$0.accepted && $0.evidence.transcript.contains("laser cutter to low") } ?? false })
        for command in ["machineOn-01-en-us_f2-175.wav", "setSpeed-09-en-us-130.wav"] {
            let heard = try detecting.recognize(file: directory.appendingPathComponent(command)).compactMap(\.intent)
            #expect(heard.map(\.name) == [String(command.prefix { $0 != "-" })], "\(command)")
        }
    }

    /// A real request whose first decode the garbage path wins (the search lost the order's path
    /// at a hesitation): decoded against the language alone it is the order, with its slots, and
    /// the detector takes it. Synthesized near misses and babble alone, decoded the same way, are
    /// turned away.
    @Test func anOrderTheGarbageWonIsHeldToTheLanguage() throws {
        let context = try Context(contentsOf: Fixtures.root.appendingPathComponent("Models/contexts/coffee_maker.yaml"))
        let recognizer = try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [context]),
                                               authorization: TestAuthorization.speechRecognition())
        let order = Fixtures.root.appendingPathComponent("Tests/Golden/real-coffee/7d3c97b9-4f83-4def-a080-1b13f661acbf.wav")
        let heard = try recognizer.recognize(file: order).filter(\.understood)
        #expect(heard.map(\.intent) == [Intent(name: "orderDrink", slots: ["coffeeDrink": "house coffee", "numberOfShots": "single shot"])])
        #expect(heard.first?.detection?.evidence.heldToLanguage == true, "\(heard)")

        var held = 0
        let negatives = ["coffee/none-01.wav", "coffee/none-02.wav", "coffee/none-05.wav", "builtins/none-10-en-us.wav", "noise/babble.wav"]
        for negative in negatives {
            let utterances = try recognizer.recognize(file: Fixtures.audio.appendingPathComponent(negative))
            #expect(utterances.allSatisfy { !$0.understood }, "\(negative): \(utterances.map(\.transcript))")
            held += utterances.filter { $0.detection?.evidence.heldToLanguage == true }.count
        }
        #expect(held > 0, "the negatives were never held to the language")
    }

    /// Real orders with six-voice babble 24 dB below them: the talk behind the speaker is above
    /// the endpointer's floor, and held every utterance open to the end of the recording, decoded
    /// as more of the order ("... with almond milk and a little bit of sweetener"). Taking frames
    /// 20 dB below the utterance's loudest as background ends the order where the speaker stops.
    @Test func talkBehindTheSpeakerDoesNotLengthenAnOrder() throws {
        let context = try Context(contentsOf: Fixtures.root.appendingPathComponent("Models/contexts/coffee_maker.yaml"))
        let golden = Fixtures.root.appendingPathComponent("Tests/Golden/real-coffee")
        let suite = try TestSuite(directory: golden)
        func right(foregroundDB: Float?) throws -> Int {
            var options = RecognizerOptions()
            options.endpointer.foregroundDB = foregroundDB
            let recognizer = try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [context]), options: options,
                                                   authorization: TestAuthorization.speechRecognition())
            return try suite.entries.filter { entry in
                let mixed = try SuiteMix.mixed(golden.appendingPathComponent(entry.file), as: "real-coffee/\(entry.file)", with: "babble", snr: 24)
                return try recognizer.recognize(samples: mixed).filter(\.understood).map(\.intent) == entry.expected.map(\.intent)
            }.count
        }
        let heldOpen = try right(foregroundDB: nil), ended = try right(foregroundDB: RecognizerOptions().endpointer.foregroundDB)
        #expect(suite.entries.count == 4)
        #expect(ended >= 3 && ended > heldOpen, "\(heldOpen) -> \(ended) of 4")
    }

    @Test func slotsComeOutExactlyAsWritten() throws {
        let recognizer = try CommandRecognizer(vocabulary: .commands(.builtins, contexts: [Context(contentsOf: Self.coffee)]),
                                               authorization: TestAuthorization.speechRecognition())
        let utterances = try recognizer.recognize(file: Fixtures.audio.appendingPathComponent("coffee/orderDrink-01-en-us.wav"))
        #expect(utterances.map(\.intent) == [Intent(name: "orderDrink", slots: ["size": "large", "drink": "latte", "milk": "oat milk"])])
        // The built-ins stay active beside the context.
        #expect(try recognizer.recognize(file: Fixtures.demo.appendingPathComponent("stop.wav")).first?.intent?.name == "stop")
    }

    @Test func missingWordsAreListedWithWhereTheyAreUsed() throws {
        let yaml = """
            context:
              expressions:
                summon:
                  - "bring me the frobnicator"
                  - "fetch the $thing:thing"
              slots:
                thing: ["zorblax widget", "cup"]
            """
        let context = try Context(yaml: yaml, source: "gadgets.yml")
        #expect(performing: {
            try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [context]), authorization: TestAuthorization.speechRecognition())
        }, throws: { error in
            let message = (error as? HeedError)?.message ?? ""
            return message.contains("gadgets.yml: 2 words are not in the pronunciation dictionary")
                && message.contains("frobnicator  (line 4: \"bring me the frobnicator\")")
                && message.contains("zorblax  (slot type thing)")
                && (error as? HeedError)?.exitCode == 78
        })
        // Supplying the pronunciations makes the same context usable.
        let fixed = try Context(yaml: yaml + "\n  pronunciations:\n    frobnicator: \"F R AA B N AH K EY T ER\"\n    zorblax: \"Z AO R B L AE K S\"\n", source: "gadgets.yml")
        _ = try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [fixed]), authorization: TestAuthorization.speechRecognition())
    }

    @Test func contextGrowsLinearlyNotWithTheNumberOfSentences() throws {
        // 40 expressions of 6 choices of 4 words each, over 3 slots of 20 values: about 4e9
        // sentences per expression, compiled without enumerating them.
        let words = ["red", "green", "blue", "white", "black", "brown", "gray", "pink", "orange", "yellow",
                     "kitchen", "garden", "hallway", "office", "garage", "bedroom", "bathroom", "attic", "porch", "cellar"]
        var yaml = "context:\n  expressions:\n"
        for n in 0..<40 {
            yaml += "    intent\(n):\n      - \"[turn, make, set, switch] (the) $a:x [on, off, up, down] $b:y (the) [lights, lamp, fan, heater] $c:z [now, please, quickly, today]\"\n"
        }
        yaml += "  slots:\n    a: [\(words.joined(separator: ", "))]\n    b: [\(words.joined(separator: ", "))]\n    c: [\(words.joined(separator: ", "))]\n"
        let context = try Context(yaml: yaml, source: "big.yml")
        let summary = try CommandRecognizer.summary(of: context)
        #expect(summary.transitions < 40 * 100)
    }
}

/// How long the stream waits at a pause is told by the grammar: a command nothing can follow ends
/// after the trailing silence, a whole request that may still go on waits longer, halfway to the
/// wait for words that are not a request yet (real people pause inside requests).
@Suite(.serialized) struct EndpointWaitTests {
    /// Seconds from the end of each understood utterance to the moment the stream hands it out,
    /// fed 10 ms at a time as a microphone would, then 2 s of silence.
    func delays(_ recognizer: CommandRecognizer, _ url: URL) throws -> [(intent: String?, delay: Double)] {
        var samples = try recognizer.loadAudio(file: url)
        samples += [Int16](repeating: 0, count: 2 * recognizer.sampleRate)
        var stream = recognizer.makeStream()
        var found: [(String?, Double)] = []
        for start in stride(from: 0, to: samples.count, by: 160) {
            for utterance in try stream.feed(Array(samples[start..<min(samples.count, start + 160)])) where utterance.understood {
                found.append((utterance.intent?.name, Double(stream.position) / Double(recognizer.sampleRate) - utterance.end))
            }
        }
        return found
    }

    @Test func aCommandNothingCanFollowEndsSoonerThanARequestThatMayGoOn() throws {
        let builtins = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
        let stop = try delays(builtins, Fixtures.demo.appendingPathComponent("stop.wav"))
        #expect(stop.map(\.intent) == ["stop"])
        #expect(stop.allSatisfy { $0.delay < 0.45 }, "\(stop)")

        // "... a twelve ounce light roast coffee": a whole order, which "with oat milk" could still follow.
        let coffee = try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [
            Context(contentsOf: Fixtures.root.appendingPathComponent("Models/contexts/coffee_maker.yaml"))]),
                                           authorization: TestAuthorization.speechRecognition())
        let order = try delays(coffee, Fixtures.root.appendingPathComponent("Tests/Golden/real-coffee/0075d273-51bb-47cb-b323-4437bd0de029.wav"))
        #expect(order.map(\.intent) == ["orderDrink"])
        #expect(order.allSatisfy { (0.45..<0.9).contains($0.delay) }, "\(order)")
    }
}
