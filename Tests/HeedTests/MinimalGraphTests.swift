import Foundation
import HeedIntents
import HeedRecognition
import HeedTestSupport
import Testing
@testable import Heed

/// Contexts compile to the smallest deterministic word graph of their language: the same
/// sentences, a fraction of the states.
struct MinimalGraphTests {
    static let coffeeMaker = Fixtures.root.appendingPathComponent("Models/contexts/coffee_maker.yaml")

    /// Whether `grammar` (any graph, empty transitions included) accepts `words`.
    static func accepts(_ grammar: Grammar, _ words: [String]) -> Bool {
        var outgoing = Array(repeating: [Grammar.Transition](), count: grammar.stateCount)
        for transition in grammar.transitions { outgoing[transition.from].append(transition) }
        func closure(_ states: Set<Int>) -> Set<Int> {
            var result = states, pending = Array(states)
            while let state = pending.popLast() {
                for t in outgoing[state] where t.word == nil && result.insert(t.to).inserted { pending.append(t.to) }
            }
            return result
        }
        var current = closure([grammar.start])
        for word in words {
            current = closure(Set(current.flatMap { outgoing[$0] }.filter { $0.word == word }.map(\.to)))
            if current.isEmpty { return false }
        }
        return current.contains(grammar.final)
    }

    /// A sentence of `pattern`, its choices made by `random`.
    static func sample(_ pattern: Pattern, _ context: Context, _ random: inout SeededGenerator) -> [String] {
        switch pattern {
        case .word(let word): return [word]
        case .sequence(let items): return items.flatMap { sample($0, context, &random) }
        case .choice(let items, let optional):
            let pick = Int(random.next() % UInt64(items.count + (optional ? 1 : 0)))
            return pick < items.count ? sample(items[pick], context, &random) : []
        case .slot(let type, _):
            let values = context.slots[type]!
            return values[Int(random.next() % UInt64(values.count))].words
        case .macro(let name):
            let choices = context.macros[name]!
            return sample(choices[Int(random.next() % UInt64(choices.count))], context, &random)
        }
    }

    /// A random walk from start to final through `grammar`.
    static func walk(_ grammar: Grammar, _ random: inout SeededGenerator) -> [String] {
        var state = grammar.start, words: [String] = []
        while state != grammar.final {
            let out = grammar.transitions.filter { $0.from == state }
            let step = out[Int(random.next() % UInt64(out.count))]
            if let word = step.word { words.append(word) }
            state = step.to
        }
        return words
    }

    func compiled(_ url: URL) throws -> (context: Context, full: Grammar, minimal: Grammar) {
        let context = try Context(contentsOf: url)
        var full = Grammar()
        ContextCompiler.add(context, to: &full)
        return (context, full, full.minimized())
    }

    @Test func coffeeMakerShrinksToTheMinimalGraph() throws {
        let (_, full, minimal) = try compiled(Self.coffeeMaker)
        // Expanded expression by expression: thousands of states. The minimal deterministic graph
        // of the same language has 57 (with the start and the one final state the decoder needs).
        #expect(full.stateCount > 5_000)
        #expect(minimal.stateCount <= 2 * 57, "\(minimal.stateCount) states")
        // Deterministic: no state leaves twice on the same word.
        let arcs = minimal.transitions.compactMap { t in t.word.map { "\(t.from) \($0)" } }
        #expect(Set(arcs).count == arcs.count)
    }

    @Test(arguments: ["coffee_maker.yaml", "coffee.yml", "home.yml", "workshop.yml", "lights.yml", "barista.yml"])
    func theLanguageIsUnchanged(file: String) throws {
        let (context, full, minimal) = try compiled(Fixtures.root.appendingPathComponent("Models/contexts/\(file)"))
        var random = SeededGenerator(seed: 7)
        for _ in 0..<100 {
            let expression = context.expressions[Int(random.next() % UInt64(context.expressions.count))]
            let sentence = Self.sample(expression.pattern, context, &random)
            #expect(Self.accepts(minimal, sentence), "\(sentence) from \(expression.text)")
            let walked = Self.walk(minimal, &random)
            #expect(context.match(walked) != nil, "\(walked) has no intent")
            #expect(Self.accepts(full, walked), "\(walked) is not in the context's own graph")
        }
    }

    @Test func continuationTellsWhetherASentenceCanEndOrGoOn() throws {
        let (_, _, minimal) = try compiled(Self.coffeeMaker)
        let whole = minimal.continuation(of: "make me a latte".split(separator: " ").map(String.init))
        #expect(whole?.canEnd == true && whole?.canContinue == true)  // "... with oat milk" may follow
        let begun = minimal.continuation(of: ["make", "me", "a"])
        #expect(begun?.canEnd == false && begun?.canContinue == true)
        let finished = minimal.continuation(of: "make me a latte with cream and sugar".split(separator: " ").map(String.init))
        #expect(finished?.canEnd == true && finished?.canContinue == false)
        #expect(minimal.continuation(of: ["stop"]) == nil)
    }
}

/// A seeded generator (splitmix64), so sampled sentences repeat run to run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
