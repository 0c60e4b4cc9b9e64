import Foundation
import HeedAudio
import HeedTestSupport
import Testing
@testable import HeedRecognition

/// The word graph handed to the decoder, and the garbage paths that make rejection possible.
struct GrammarTests {
    /// The garbage loop stands for a whole utterance: it is entered only from the start, on a
    /// garbage unit, and left only for the end; a phrase is never followed or preceded by it.
    @Test func garbageStandsForAWholeUtterance() {
        var grammar = Grammar()
        grammar.addPhrase(["what", "is", "the", "voltage"])
        grammar.addPhrase(["stop"])
        grammar.addGarbageLoop(units: ["uh", "hmm"], penalty: 1e-4)
        let loop = grammar.stateCount - 1
        let into = grammar.transitions.filter { $0.to == loop && $0.from != loop }
        #expect(Set(into.map(\.from)) == [grammar.start])
        #expect(into.allSatisfy { $0.word != nil && $0.probability == 1e-4 })
        let out = grammar.transitions.filter { $0.from == loop && $0.to != loop }
        #expect(out.map(\.to) == [grammar.final] && out.allSatisfy { $0.word == nil })
        #expect(!grammar.transitions.contains { $0.from == grammar.final })
    }

    /// PocketSphinx's FSG file format: states, then one TRANSITION line per arc, an empty one
    /// without a word; probabilities as they are (PocketSphinx applies the language weight).
    @Test func fsgTextIsPocketSphinxsFileFormat() {
        var grammar = Grammar()
        grammar.addPhrase(["turn", "on"])
        grammar.add(from: grammar.start, to: grammar.final, word: nil, probability: 0.5)
        #expect(grammar.fsgText(name: "lights") == """
            FSG_BEGIN lights
            NUM_STATES 3
            START_STATE 0
            FINAL_STATE 1
            TRANSITION 0 2 1.0 turn
            TRANSITION 2 1 1.0 on
            TRANSITION 0 1 0.5
            FSG_END

            """)
    }

}
