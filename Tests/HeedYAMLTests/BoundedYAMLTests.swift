import Foundation
import Testing
@testable import HeedYAML

/// YAML as Heed's files use it, composed from libyaml's events with a bound on alias expansion.
struct BoundedYAMLTests {
    @Test func aMappingKeepsItsOrderAndWhereEachNodeStarts() throws {
        let root = try #require(try BoundedYAML.compose("""
            context:
              expressions:
                order: ["a \\"latte\\"", 'tea']
              slots: {size: [small, large]}
            """))
        let context = try #require(root.mapping?["context"]?.mapping)
        #expect(context.keys.map(\.string) == ["expressions", "slots"])
        let order = try #require(context["expressions"]?.mapping?["order"]?.sequence)
        #expect(order.map(\.string) == ["a \"latte\"", "tea"])
        #expect(order.map(\.isQuoted) == [true, true])
        #expect(order[0].mark == YAMLMark(line: 3, column: 13))  // the opening quote
        #expect(context["slots"]?.mapping?["size"]?.sequence?.map(\.string) == ["small", "large"])
        #expect(context["slots"]?.mapping?["size"]?.sequence?.first?.isQuoted == false)
    }

    @Test func plainScalarsAreResolvedAndQuotedOnesAreText() throws {
        let values = try #require(try BoundedYAML.load("""
            count: 12
            negative: -3
            hex: 0x1F
            ratio: 0.5
            yes: yes
            off: off
            truth: true
            nothing: ~
            empty:
            quoted: "12"
            tagged: !!str 7
            time: 1:30:00
            huge: 99999999999999999999
            word: hello
            """) as? [String: Any])
        #expect(values["count"] as? Int == 12)
        #expect(values["negative"] as? Int == -3)
        #expect(values["hex"] as? Int == 31)
        #expect(values["ratio"] as? Double == 0.5)
        #expect(values["yes"] as? Bool == true)
        #expect(values["off"] as? Bool == false)
        #expect(values["truth"] as? Bool == true)
        #expect(values["nothing"] is NSNull && values["empty"] is NSNull)
        #expect(values["quoted"] as? String == "12")
        #expect(values["tagged"] as? String == "7")
        // YAML 1.1's base 60 is not read as a number (it used to overflow): it stays text.
        #expect(values["time"] as? String == "1:30:00")
        #expect(values["huge"] as? Double == 1e20)
        #expect(values["word"] as? String == "hello")
    }

    @Test func aliasesRepeatTheirNode() throws {
        let values = try #require(try BoundedYAML.load("base: &milk [oat, soy]\ncopy: *milk\n") as? [String: Any])
        #expect(values["copy"] as? [String] == ["oat", "soy"])
    }

    /// Nine aliases of nine aliases, eight deep: 387 million nodes in a few hundred bytes.
    @Test func anAliasBombIsRefusedAtOnce() throws {
        var text = "a0: &a0 [\(Array(repeating: "\"lol\"", count: 9).joined(separator: ","))]\n"
        for level in 1...8 { text += "a\(level): &a\(level) [\(Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ","))]\n" }
        let started = Date()
        #expect(throws: BoundedYAML.TooLarge.self) { try BoundedYAML.compose(text) }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test func aListAsAKeyIsRefusedWithItsLine() throws {
        do {
            _ = try BoundedYAML.compose("a: 1\n? [x, y]\n: 2\n")
            Issue.record("accepted")
        } catch let error as BoundedYAML.ComplexKey {
            #expect(error.line == 2)
        }
    }

    @Test func syntaxErrorsSayWhatAndWhere() throws {
        for (text, line) in [("a: [\"x\"\n", 2), ("a: *nowhere\n", 1), ("a: 1\n---\nb: 2\n", 2), ("a: b: c\n", 1)] {
            do {
                _ = try BoundedYAML.compose(text)
                Issue.record("accepted: \(text)")
            } catch let error as BoundedYAML.SyntaxError {
                #expect(error.mark.line == line, "\(text): \(error)")
                #expect(!error.problem.isEmpty)
            }
        }
    }

    @Test func anEmptyDocumentIsNothing() throws {
        #expect(try BoundedYAML.compose("") == nil)
        #expect(try BoundedYAML.compose("# only a comment\n") == nil)
    }

    @Test func numbersAreReadFromScalarsOnly() throws {
        let root = try #require(try BoundedYAML.compose("a: 5\nb: '2.5'\nc: five\nd: [1]\n")?.mapping)
        #expect(root["a"]?.number == 5)
        #expect(root["b"]?.number == 2.5)
        #expect(root["c"]?.number == nil)
        #expect(root["d"]?.number == nil)
    }
}
