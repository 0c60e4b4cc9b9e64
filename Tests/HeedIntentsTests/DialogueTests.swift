import Testing
@testable import HeedIntents

@Suite struct DialogueParsingTests {
    static let barista = """
        context:
          expressions:
            orderDrink:
              - "[order, get me] a (  $size:size ) $drink:drink"
            orderFood:
              - "order a $food:food"
          slots:
            size: ["small", "large"]
            drink: ["tea", "hot chocolate"]
            food: ["bagel"]
        dialogue:
          orderDrink:
            require:
              size: "What size of {drink}?"
            confirm: "Ready to order a {size} {drink}?"
            success: "Your {size} {drink} is on its way."
            failure: "Sorry."
            timeout: 5
        """

    @Test func readsTheDialogueBesideTheRhinoContext() throws {
        let context = try Context(yaml: Self.barista, source: "barista.yml")
        let rules = try #require(context.dialogue["orderDrink"])
        #expect(rules.required == [.init(slot: "size", type: "size", question: "What size of {drink}?")])
        #expect(rules.confirmation == "Ready to order a {size} {drink}?")
        #expect(rules.timeout == 5)
        #expect(context.dialogue["orderFood"] == nil)
        #expect(DialogueRules.render(rules.success!, for: Intent(name: "orderDrink", slots: ["size": "large", "drink": "hot chocolate"]))
                == "Your large hot chocolate is on its way.")
    }

    @Test(arguments: [
        ("  orderDrink:\n    require:\n      milk: \"Which milk?\"", "'milk' is not a slot of orderDrink", 14, 7),
        ("  orderSoup:\n    confirm: \"Sure?\"", "dialogue for unknown intent 'orderSoup'", 12, 3),
        ("  orderDrink:\n    confirm: \"A {colour} one?\"", "'{colour}' is not a slot of orderDrink", 13, 15),
        ("  orderDrink:\n    timeout: -1", "`timeout` is seconds, more than 0 and at most 600", 13, 14),
        ("  orderDrink:\n    greet: \"hi\"", "unknown key 'greet' (expected require, confirm, success, failure, timeout)", 13, 5),
    ])
    func mistakesPointAtTheLine(section: String, message: String, line: Int, column: Int) {
        let yaml = Self.barista.components(separatedBy: "\ndialogue:")[0] + "\ndialogue:\n" + section
        do {
            _ = try Context(yaml: yaml, source: "bad.yml")
            Issue.record("accepted: \(section)")
        } catch {
            #expect(error.message == message)
            #expect(error.line == line && error.column == column, "\(error.line):\(error.column) \(error.description)")
        }
    }

    @Test func unknownTopLevelKeysAreErrors() {
        #expect(throws: ContextError.self) { try Context(yaml: Self.barista + "\ndialog:\n  x: 1\n", source: "typo.yml") }
    }
}

@Suite struct ConversationTests {
    var conversation: Conversation
    let tea = Intent(name: "orderDrink", slots: ["drink": "tea"])

    init() throws {
        conversation = Conversation(contexts: [try Context(yaml: DialogueParsingTests.barista, source: "barista.yml")])
    }

    @Test mutating func resolvesThenConfirmsThenCompletes() {
        #expect(conversation.heard(intent: tea, words: ["order", "a", "tea"], understood: true, start: 0, end: 1)
                == [.prompt(.init(intent: tea, slot: "size", question: "What size of tea?"))])
        #expect(conversation.expectation == .slot(type: "size"))
        let large = Intent(name: "orderDrink", slots: ["drink": "tea", "size": "large"])
        #expect(conversation.heard(intent: nil, words: ["large"], understood: true, start: 2, end: 2.5)
                == [.prompt(.init(intent: large, slot: nil, question: "Ready to order a large tea?"))])
        #expect(conversation.expectation == .confirmation)
        #expect(conversation.heard(intent: nil, words: ["yeah"], understood: true, start: 3, end: 3.4) == [.completed(large)])
        #expect(conversation.expectation == .command)
        #expect(conversation.response(for: large, succeeded: true) == "Your large tea is on its way.")
        #expect(conversation.response(for: large, succeeded: false) == "Sorry.")
    }

    @Test mutating func intentsWithoutADialogueCompleteAtOnce() {
        let bagel = Intent(name: "orderFood", slots: ["food": "bagel"])
        #expect(conversation.heard(intent: bagel, words: ["order", "a", "bagel"], understood: true, start: 0, end: 1) == [.completed(bagel)])
        #expect(conversation.heard(intent: nil, words: [], understood: false, start: 2, end: 3) == [])
        #expect(conversation.response(for: bagel, succeeded: true) == nil)
    }

    @Test mutating func noCancelAndSilenceEndTheExchange() {
        let full = Intent(name: "orderDrink", slots: ["drink": "tea", "size": "small"])
        _ = conversation.heard(intent: full, words: [], understood: true, start: 0, end: 1)
        #expect(conversation.heard(intent: nil, words: ["no"], understood: true, start: 2, end: 2.3) == [.aborted(full, .declined)])

        _ = conversation.heard(intent: tea, words: [], understood: true, start: 10, end: 11)
        #expect(conversation.heard(intent: nil, words: ["cancel"], understood: true, start: 12, end: 12.4) == [.aborted(tea, .cancelled)])

        _ = conversation.heard(intent: tea, words: [], understood: true, start: 20, end: 21)
        #expect(conversation.tick(at: 25.9) == [])
        #expect(conversation.tick(at: 26.1) == [.aborted(tea, .timedOut)])
        #expect(conversation.expectation == .command)

        _ = conversation.heard(intent: tea, words: [], understood: true, start: 30, end: 31)
        #expect(conversation.finish() == [.aborted(tea, .inputEnded)])
    }

    @Test mutating func asksAgainOnceThenGivesUp() {
        _ = conversation.heard(intent: tea, words: [], understood: true, start: 0, end: 1)
        let again = conversation.heard(intent: nil, words: [], understood: false, start: 2, end: 3)
        #expect(again == [.prompt(.init(intent: tea, slot: "size", question: "What size of tea?"))])
        #expect(conversation.expectation == .slot(type: "size"))
        #expect(conversation.heard(intent: nil, words: [], understood: false, start: 4, end: 5) == [.aborted(tea, .notUnderstood)])
    }

    @Test mutating func aLateAnswerIsACommandAgain() {
        _ = conversation.heard(intent: tea, words: [], understood: true, start: 0, end: 1)
        let stop = Intent(name: "stop")
        // Speech that starts after the deadline: the question is dropped first, then it counts as a command.
        #expect(conversation.heard(intent: stop, words: ["stop"], understood: true, start: 8, end: 8.5) == [.aborted(tea, .timedOut), .completed(stop)])
    }
}
