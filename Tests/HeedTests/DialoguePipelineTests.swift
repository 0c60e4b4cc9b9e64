import Foundation
import HeedAudio
import HeedTestSupport
import Testing
@testable import Heed
import HeedShortcuts
import HeedRecognition

/// Dialogues and shortcuts through the real decoder, on recordings (Audio/dialogue, Audio/shortcuts).
@Suite(.serialized) struct DialoguePipelineTests {
    static let barista = Fixtures.root.appendingPathComponent("Models/contexts/barista.yml")

    func recognizer(builtins: Bool = true) throws -> CommandRecognizer {
        try CommandRecognizer(vocabulary: .commands(builtins ? .builtins : CommandSet(), contexts: [Context(contentsOf: Self.barista)]),
                              authorization: TestAuthorization.speechRecognition())
    }

    func steps(_ file: String, with recognizer: CommandRecognizer) throws -> [Conversation.Event] {
        let samples = try recognizer.loadAudio(file: Fixtures.audio.appendingPathComponent(file))
        return try recognizer.recognizeEvents(samples: samples).compactMap { if case .dialogue(let step, _) = $0 { step } else { nil } }
    }

    @Test func aSpokenExchangeResolvesTheSizeThenConfirms() throws {
        let recognizer = try recognizer()
        let tea = Intent(name: "orderDrink", slots: ["drink": "tea"]), large = Intent(name: "orderDrink", slots: ["drink": "tea", "size": "large"])
        for voice in ["en-us", "en-us_f2"] {
            #expect(try steps("dialogue/resolve-confirm-\(voice).wav", with: recognizer) == [
                .prompt(.init(intent: tea, slot: "size", question: "What size?")),
                .prompt(.init(intent: large, slot: nil, question: "Ready to order a large tea?")),
                .completed(large),
            ])
        }
        // The recognizer is back to commands for whatever comes next.
        #expect(recognizer.expectation == .command)
    }

    @Test func noAndCancelAbandonTheOrder() throws {
        let recognizer = try recognizer()
        let lemonade = Intent(name: "orderDrink", slots: ["drink": "lemonade", "size": "medium"])
        #expect(try steps("dialogue/declined-en-us.wav", with: recognizer).last == .aborted(lemonade, .declined))
        #expect(try steps("dialogue/cancelled-en-us.wav", with: recognizer).last == .aborted(Intent(name: "orderDrink", slots: ["drink": "hot chocolate"]), .cancelled))
    }

    @Test func silencePastTheTimeoutDropsTheQuestion() throws {
        let steps = try steps("dialogue/timeout-en-us.wav", with: recognizer())
        #expect(steps.dropFirst() == [.aborted(Intent(name: "orderDrink", slots: ["drink": "coffee"]), .timedOut), .completed(Intent(name: "stop"))])
    }

    /// While a size is asked for, only sizes (and "cancel") are heard: "stop" is not an answer,
    /// so the question is asked again. Afterwards "stop" is a command again.
    @Test func anAnswerGrammarHearsOnlyAnswers() throws {
        let recognizer = try recognizer()
        let order = try recognizer.loadAudio(file: Fixtures.audio.appendingPathComponent("dialogue/resolve-confirm-en-us.wav"))
        let stop = try recognizer.loadAudio(file: Fixtures.demo.appendingPathComponent("stop.wav"))
        var stream = recognizer.makeStream()
        // Fed 10 ms at a time up to the question, as a microphone would.
        let prompt = Conversation.Event.prompt(.init(intent: Intent(name: "orderDrink", slots: ["drink": "tea"]), slot: "size", question: "What size?"))
        var asked: [UtteranceStream.Event] = []
        for start in stride(from: 0, to: order.count, by: 160) where !asked.contains(where: { if case .dialogue(prompt, _) = $0 { true } else { false } }) {
            asked += try stream.feedEvents(Array(order[start..<min(order.count, start + 160)]))
        }
        #expect(asked.contains { if case .dialogue(prompt, _) = $0 { true } else { false } }, "\(asked)")
        #expect(recognizer.expectation == .slot(type: "size"))
        let answered = try stream.feedEvents(stop) + stream.finishEvents()
        let heard = answered.compactMap { if case .utterance(let u) = $0 { u } else { nil } }
        #expect(!heard.isEmpty && heard.allSatisfy { !$0.understood }, "\(heard)")
        #expect(!answered.contains { if case .dialogue(.completed, _) = $0 { true } else { false } })
        #expect(try recognizer.recognize(file: Fixtures.demo.appendingPathComponent("stop.wav")).compactMap(\.intent) == [Intent(name: "stop")])
    }
}

@Suite(.serialized) struct ShortcutPipelineTests {
    let coffee = Shortcut(id: "coffee", title: "Order my favorite coffee", phrase: "order my coffee",
                          intent: Intent(name: "orderDrink", slots: ["size": "large", "drink": "latte"]))

    @Test func aDonatedPhraseYieldsItsIntentUntilItIsRemoved() throws {
        let recognizer = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
        let files = ["shortcuts/order-my-coffee.wav", "shortcuts/order-my-coffee-f2.wav"].map { Fixtures.audio.appendingPathComponent($0) }
        for file in files { #expect(try recognizer.recognize(file: file).allSatisfy { !$0.understood }) }
        #expect(try recognizer.setShortcuts([coffee]).isEmpty)
        for file in files { #expect(try recognizer.recognize(file: file).compactMap(\.intent) == [coffee.intent]) }
        // Built-ins still work beside it.
        let both = try recognizer.recognize(file: Fixtures.audio.appendingPathComponent("shortcuts/coffee-then-stop.wav")).compactMap(\.intent)
        #expect(both == [coffee.intent, Intent(name: "stop")])
        try recognizer.setShortcuts([])
        for file in files { #expect(try recognizer.recognize(file: file).allSatisfy { !$0.understood }) }
    }

    /// Setting shortcuts drops the command searches and builds them again (so the new ones reuse
    /// the old ones' memory), or leaves them be when nothing changed. Either way a noisy utterance
    /// comes out exactly as before, down to its confidence.
    @Test func rebuiltSearchesDecodeNoiseAsBefore() throws {
        let recognizer = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
        let noisy = try SuiteMix.mixed(Fixtures.builtins.appendingPathComponent("cancel-en-us-130.wav"), as: "builtins/cancel-en-us-130.wav",
                                       with: "pink", snr: 12)
        let before = try recognizer.recognize(samples: noisy)
        #expect(before.compactMap(\.intent) == [Intent(name: "cancel")], "\(before)")
        for shortcuts in [[coffee], [coffee], []] {
            try recognizer.setShortcuts(shortcuts)
            let after = try recognizer.recognize(samples: noisy)
            #expect(after.map(\.transcript) == before.map(\.transcript) && after.map(\.confidence) == before.map(\.confidence), "\(after)")
        }
    }

    @Test func shortcutsThatCannotBeHeardOrClashAreLeftOutWithAReason() throws {
        let recognizer = try CommandRecognizer(authorization: TestAuthorization.speechRecognition())
        let unknown = Shortcut(id: "x", title: "X", phrase: "zorblax now", intent: Intent(name: "x"))
        let clash = Shortcut(id: "y", title: "Y", phrase: "stop", intent: Intent(name: "halt"))
        let skipped = try recognizer.setShortcuts([unknown, clash, coffee])
        #expect(skipped.count == 2)
        #expect(skipped[0].contains("zorblax"))
        #expect(skipped[1].contains("already means stop"))
    }

    @Test func checkingADonationUsesTheRealDictionaryAndContexts() throws {
        #expect(try CommandRecognizer.check(coffee, others: []).isEmpty)
        #expect(throws: ShortcutError.self) {
            try CommandRecognizer.check(Shortcut(id: "x", title: "X", phrase: "frobnicate it", intent: Intent(name: "x")), others: [])
        }
        // "order a tea" already means orderDrink(drink: tea) in the barista context.
        let barista = try Context(contentsOf: DialoguePipelineTests.barista)
        let tea = Shortcut(id: "t", title: "Tea", phrase: "order a tea", intent: Intent(name: "soup"))
        #expect(throws: ShortcutError.self) { try CommandRecognizer.check(tea, others: [], vocabulary: .commands(.builtins, contexts: [barista])) }
        var same = tea
        same.intent = Intent(name: "orderDrink", slots: ["drink": "tea"])
        #expect(try CommandRecognizer.check(same, others: [], vocabulary: .commands(.builtins, contexts: [barista])).isEmpty)
    }
}
