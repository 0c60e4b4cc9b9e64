import Testing
@testable import HeedIntents

@Suite struct ExpressionParserTests {
    @Test func parsesChoicesSlotsAndMacros() throws {
        let pattern = try ExpressionParser.parse("[turn, make] (the) $location:room @dark")
        #expect(pattern == .sequence([
            .choice([.sequence([.word("turn")]), .sequence([.word("make")])], optional: false),
            .choice([.sequence([.word("the")])], optional: true),
            .slot(type: "location", name: "room"),
            .macro("dark"),
        ]))
    }

    @Test(arguments: [
        ("[turn, make the lights", "'[' is never closed", 0),
        ("turn (the lights", "'(' is never closed", 5),
        ("turn the) lights", "')' has no matching '('", 8),
        ("[turn, , make] it", "empty choice", 6),
        ("turn $location lights", "a slot is written $type:name", 5),
        ("say @ now", "a macro is written @name", 4),
    ])
    func reportsWhereTheProblemIs(text: String, message: String, column: Int) {
        do {
            _ = try ExpressionParser.parse(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.message == message)
            #expect(error.column == column, "\(text)")
        }
    }
}

@Suite struct ContextTests {
    static let lights = """
        context:
          expressions:
            changeColor:
              - "[turn, make] (the) $location:room (lights, light) $color:color"
              - "[change, set] (the) (lights, light) (in) (the) $location:room to $color:color"
            lightsOff:
              - "[turn, switch] off (all) (the) lights (in) (the) $location:room"
              - "@dark (the) $location:room"
          slots:
            location: ["kitchen", "living room", "bedroom"]
            color: ["red", "warm white", "blue"]
          macros:
            dark: ["darken", "black out"]
        """

    func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

    /// `$type:name`: values come from `slots.type`, and the slot is reported under `name`.
    @Test func matchesIntentsWithSlotValuesAsWritten() throws {
        let context = try Context(yaml: Self.lights, source: "lights.yml")
        #expect(context.intentNames == ["changeColor", "lightsOff"])
        #expect(context.match(words("turn the living room lights warm white")) == Intent(name: "changeColor", slots: ["room": "living room", "color": "warm white"]))
        #expect(context.match(words("set kitchen to blue")) == Intent(name: "changeColor", slots: ["room": "kitchen", "color": "blue"]))
        #expect(context.match(words("switch off all the lights in the bedroom")) == Intent(name: "lightsOff", slots: ["room": "bedroom"]))
        #expect(context.match(words("black out the living room")) == Intent(name: "lightsOff", slots: ["room": "living room"]))
        #expect(context.match(words("turn the garage lights red")) == nil)
        #expect(context.match(words("turn the kitchen lights")) == nil)
    }

    @Test func vocabularyCoversExpressionsSlotsAndMacros() throws {
        let context = try Context(yaml: Self.lights, source: "lights.yml")
        #expect(context.vocabulary.isSuperset(of: ["turn", "warm", "white", "living", "room", "darken", "black", "out", "to"]))
    }

    @Test func respellingSplitsWordsTheDictionaryKnowsInParts() throws {
        let context = try Context(yaml: """
            context:
              expressions:
                order: ["a $milk:milk latte"]
              slots:
                milk: ["two-percent"]
            """, source: "c.yml")
        let spelled = context.respelled { $0 == "two-percent" ? ["two", "percent"] : [$0] }
        #expect(spelled.match(["a", "two", "percent", "latte"]) == Intent(name: "order", slots: ["milk": "two-percent"]))
    }

    @Test(arguments: [
        ("context:\n  expressions:\n    a:\n      - \"turn $colour:c on\"\n  slots:\n    color: [red]\n", 4, 15, "unknown slot type 'colour'"),
        ("context:\n  expressions:\n    a:\n      - \"@dim the lights\"\n", 4, 10, "unknown macro '@dim'"),
        ("context:\n  expressions:\n    a:\n      - \"[turn on\"\n", 4, 10, "'[' is never closed"),
        ("context:\n  expressions:\n    a:\n      - turn (on\n", 4, 14, "'(' is never closed"),
        ("context:\n  expressions:\n    a: [\"x\"\n", 4, 1, "YAML error"),
        ("context:\n  expresions:\n    a: [x]\n", 2, 3, "unknown key 'expresions'"),
        ("context:\n  expressions:\n    a: [x]\n  slots:\n    color: []\n", 5, 5, "slot type 'color' needs a non-empty list"),
    ])
    func errorsPointAtLineAndColumn(yaml: String, line: Int, column: Int, message: String) {
        do {
            _ = try Context(yaml: yaml, source: "bad.yml")
            Issue.record("accepted")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(error.description.hasPrefix("bad.yml:\(line):\(column): "))
        }
    }

    @Test func caretSitsUnderTheProblem() throws {
        do {
            _ = try Context(yaml: "context:\n  expressions:\n    a:\n      - \"turn $colour:c on\"\n  slots:\n    color: [red]\n", source: "bad.yml")
        } catch {
            let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 3)
            let caret = lines[2].firstIndex(of: "^").map { lines[2].distance(from: lines[2].startIndex, to: $0) }
            let problem = lines[1].range(of: "$colour").map { lines[1].distance(from: lines[1].startIndex, to: $0.lowerBound) }
            #expect(caret == problem)
        }
    }
}
