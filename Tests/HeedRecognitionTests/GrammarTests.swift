import Foundation
import HeedAudio
import HeedTestSupport
import Testing
@testable import HeedRecognition

/// The word graph handed to the decoder, and the garbage paths that make rejection possible.
struct GrammarTests {
    /// Empty transitions into `loop`, by the state they leave.
    func entries(into loop: Int, _ grammar: Grammar) -> Set<Int> {
        Set(grammar.transitions.filter { $0.to == loop && $0.word == nil }.map(\.from))
    }

    @Test func garbageCanBeEnteredFromInsideEveryPhrase() {
        var grammar = Grammar()
        grammar.addPhrase(["what", "is", "the", "voltage"])
        grammar.addPhrase(["what", "is", "the", "speed"])
        grammar.addPhrase(["stop"])
        // States: start, final, and one after each of "what", "is", "the" (shared by both phrases).
        let inner = Set(2..<grammar.stateCount)
        #expect(inner.count == 3)
        grammar.addGarbageLoop(units: ["uh", "hmm"], penalty: 1e-4, entryFromInside: 1e-3)
        let wordLoop = grammar.stateCount - 1
        #expect(entries(into: wordLoop, grammar) == inner)
        #expect(grammar.transitions.filter { $0.to == wordLoop && $0.word == nil }.allSatisfy { $0.probability == 1e-3 })
        // A second loop entered from inside skips the first loop: that state is not in a phrase.
        grammar.addGarbageLoop(units: ["~aa"], penalty: 1e-8, entryFromInside: 1e-3)
        #expect(entries(into: grammar.stateCount - 1, grammar) == inner)
    }

    /// A form that only fits before some words (a linking r before a vowel) goes only on the
    /// transitions those words can follow, empty transitions included.
    @Test func variantsBeforeSomeWordsGoOnlyWhereTheyCanFollow() {
        var grammar = Grammar()
        grammar.addPhrase(["power", "up", "the", "saw"])
        grammar.addPhrase(["power", "down", "the", "saw"])
        grammar.addPhrase(["lower", "it"])
        grammar.addPhrase(["timer"])
        let afterLower = grammar.transitions.first { $0.word == "lower" }!.to
        let skip = grammar.addState()
        grammar.add(from: afterLower, to: skip, word: nil)
        grammar.add(from: skip, to: grammar.final, word: "again")
        let vowelFirst: Set<String> = ["up", "it", "again"]
        grammar.addVariants(["power": ["power~lr"], "lower": ["lower~lr"], "timer": ["timer~lr"]], probability: 0.1,
                            before: vowelFirst.contains)
        let variants = grammar.transitions.filter { $0.word?.hasSuffix("~lr") == true }
        // "power" is followed by "up" on its one transition, "lower" by "it"; "timer" ends its phrase.
        #expect(variants.map(\.word) == ["power~lr", "lower~lr"])
        #expect(variants.allSatisfy { $0.probability == 0.1 })
        var onlyAgain = Grammar()
        onlyAgain.addPhrase(["lower"])
        let middle = onlyAgain.addState()
        onlyAgain.add(from: onlyAgain.start, to: middle, word: "lower")
        let empty = onlyAgain.addState()
        onlyAgain.add(from: middle, to: empty, word: nil)
        onlyAgain.add(from: empty, to: onlyAgain.final, word: "again")
        onlyAgain.addVariants(["lower": ["lower~lr"]], probability: 0.1, before: vowelFirst.contains)
        // Only the "lower" that "again" can follow, through an empty transition, gets the form.
        #expect(onlyAgain.transitions.filter { $0.word == "lower~lr" }.map(\.to) == [middle])
    }

    /// A word that is a phrase by itself keeps only its own pronunciations when it is one of
    /// `notAlone`; the same word inside a longer phrase gets its variants.
    @Test func variantsCanLeaveOneWordPhrasesAlone() {
        var grammar = Grammar()
        grammar.addPhrase(["start"])
        grammar.addPhrase(["start", "recording"])
        grammar.addPhrase(["done"])
        #expect(grammar.oneWordPhrases == ["start", "done"])
        grammar.addVariants(["start": ["start~ac"], "done": ["done~ac"]], probability: 0.1, notAlone: ["start"])
        let variants = grammar.transitions.filter { $0.word?.hasSuffix("~ac") == true }
        #expect(variants.map(\.word) == ["start~ac", "done~ac"])
        #expect(variants.first { $0.word == "start~ac" }?.to != grammar.final)
        #expect(variants.first { $0.word == "done~ac" }?.to == grammar.final)
        #expect(variants.allSatisfy { $0.probability == 0.1 })
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

    @Test func withoutEntryFromInsideOnlyWholePhrasesLeadToGarbage() {
        var grammar = Grammar()
        grammar.addPhrase(["what", "is", "the", "voltage"])
        grammar.addGarbageLoop(units: ["uh"], penalty: 1e-4)
        let loop = grammar.stateCount - 1
        #expect(entries(into: loop, grammar).isEmpty)
        // Into the loop only on a garbage word, from the start or after a whole phrase.
        #expect(Set(grammar.transitions.filter { $0.to == loop && $0.from != loop }.map(\.from)) == [grammar.start, grammar.final])
    }

    /// "go forward ten meters" against a grammar that only knows "go forward five meters": with
    /// whole phrases only, the decoder must call it that or all garbage; entered from inside, the
    /// garbage loop takes the words after "go forward" that do not fit.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func speechThatOnlyBeginsLikeAPhraseLeavesItWhereItStopsFitting() throws {
        let audio = PCM.int16(littleEndianBytes: [UInt8](try Data(contentsOf: Fixtures.corpus.appendingPathComponent("goforward.raw"))))
        let garbage = ["ten", "a", "the", "is", "to", "and", "it", "one"]
        func decode(entryFromInside: Double?) throws -> [String] {
            var grammar = Grammar()
            grammar.addPhrase(["go", "forward", "five", "meters"])
            grammar.addGarbageLoop(units: garbage, penalty: 1e-6, entryFromInside: entryFromInside)
            let decoder = try Decoder()
            try decoder.add(grammar, named: "g")
            try decoder.select("g")
            try decoder.startUtterance()
            try decoder.process(audio, wholeUtterance: true)
            return try decoder.endUtterance().spokenWords.map(\.word)
        }
        #expect(try decode(entryFromInside: nil) == ["go", "forward", "five", "meters"])
        let inside = try decode(entryFromInside: 1e-3)
        #expect(Array(inside.prefix(2)) == ["go", "forward"] && inside.contains("ten") && !inside.contains("five"), "\(inside)")
    }
}
