/// A word-level finite-state grammar: what the decoder may hear, as a graph of word transitions.
///
/// Built in Swift and handed to PocketSphinx as an FSG, never as JSGF text: JSGF rule references
/// are expanded by the decoder into far more states than the language needs.
public struct Grammar: Equatable, Sendable {
    public struct Transition: Equatable, Sendable {
        public var from: Int
        public var to: Int
        /// nil is an empty (epsilon) transition.
        public var word: String?
        /// Probability of taking this transition out of `from` (need not sum to 1; the decoder takes logs).
        public var probability: Double
    }

    public private(set) var stateCount: Int
    public let start: Int
    public let final: Int
    public private(set) var transitions: [Transition] = []
    /// The states of the garbage loops added so far (they are not inside a phrase).
    private var garbageLoops: Set<Int> = []

    public init() {
        stateCount = 2
        start = 0
        final = 1
    }

    public var words: Set<String> { Set(transitions.compactMap(\.word)) }

    public mutating func addState() -> Int {
        stateCount += 1
        return stateCount - 1
    }

    public mutating func add(from: Int, to: Int, word: String?, probability: Double = 1) {
        precondition(from < stateCount && to < stateCount, "transition between unknown states")
        transitions.append(Transition(from: from, to: to, word: word, probability: probability))
    }

    /// Adds a path from start to final that spells `phrase`, sharing prefixes with phrases already added
    /// so that common beginnings are decoded once.
    public mutating func addPhrase(_ phrase: [String], probability: Double = 1) {
        precondition(!phrase.isEmpty, "empty phrase")
        var state = start
        for (index, word) in phrase.enumerated() {
            let isLast = index == phrase.count - 1
            if isLast {
                if !transitions.contains(where: { $0.from == state && $0.to == final && $0.word == word }) {
                    add(from: state, to: final, word: word, probability: index == 0 ? probability : 1)
                }
            } else if let existing = transitions.first(where: { $0.from == state && $0.word == word && $0.to != final }) {
                state = existing.to
            } else {
                let next = addState()
                add(from: state, to: next, word: word, probability: index == 0 ? probability : 1)
                state = next
            }
        }
    }

    /// Gives every transition on a word in `variants` a parallel one on each of its variants (other
    /// dictionary words that stand for it, such as an accent's pronunciation), at `probability`
    /// times the original's: a variant wins only when it fits the audio that much better.
    public mutating func addVariants(_ variants: [String: [String]], probability: Double) {
        addVariants(variants, probability: probability, where: { _ in true })
    }

    /// Like `addVariants`, but where one of `notAlone` is a phrase by itself (a transition from
    /// start to final) it keeps only its own pronunciations; in longer phrases it gets its variants.
    public mutating func addVariants(_ variants: [String: [String]], probability: Double, notAlone: Set<String>) {
        addVariants(variants, probability: probability, where: { [start, final] in
            $0.from != start || $0.to != final || !notAlone.contains($0.word ?? "")
        })
    }

    /// The words that are a phrase by themselves (a transition from start to final).
    public var oneWordPhrases: Set<String> {
        Set(transitions.filter { $0.from == start && $0.to == final }.compactMap(\.word))
    }

    /// Like `addVariants`, only on transitions that a word `next` accepts can follow (through any
    /// empty transitions): a form that only fits before certain words.
    public mutating func addVariants(_ variants: [String: [String]], probability: Double, before next: (String) -> Bool) {
        var outgoing: [Int: [Transition]] = [:]
        for transition in transitions { outgoing[transition.from, default: []].append(transition) }
        func followed(_ state: Int) -> Bool {
            var seen: Set<Int> = [state], pending = [state]
            while let current = pending.popLast() {
                for transition in outgoing[current] ?? [] {
                    if let word = transition.word {
                        if next(word) { return true }
                    } else if seen.insert(transition.to).inserted {
                        pending.append(transition.to)
                    }
                }
            }
            return false
        }
        addVariants(variants, probability: probability, where: { followed($0.to) })
    }

    /// The variants of `variants` on every transition on one of its words that `accepts` allows.
    private mutating func addVariants(_ variants: [String: [String]], probability: Double, where accepts: (Transition) -> Bool) {
        for transition in transitions {
            guard let word = transition.word, let others = variants[word], accepts(transition) else { continue }
            for other in others {
                add(from: transition.from, to: transition.to, word: other, probability: transition.probability * probability)
            }
        }
    }

    /// Adds a loop of garbage "words" that can stand for any speech that is not a command: alone,
    /// before a command, or after one ("please stop", "cancel my appointment"). A path through it
    /// marks the utterance as not understood. `penalty` is the probability charged per garbage
    /// unit; lower rejects less. Several loops can be added (say, words and single phones).
    ///
    /// With `entryFromInside`, every state inside the phrases already added also gets an empty
    /// transition into the loop at that probability: a sentence that begins like a command and
    /// goes on otherwise ("what is the" + "time", against "what is the voltage") can leave the
    /// phrase where it stops fitting, instead of being forced onto the nearest whole command.
    public mutating func addGarbageLoop(units: [String], penalty: Double, entryFromInside: Double? = nil) {
        guard !units.isEmpty else { return }
        let loop = addState()
        if let entryFromInside {
            for state in 0..<loop where state != start && state != final && !garbageLoops.contains(state) {
                add(from: state, to: loop, word: nil, probability: entryFromInside)
            }
        }
        garbageLoops.insert(loop)
        for unit in units {
            add(from: start, to: loop, word: unit, probability: penalty)
            add(from: loop, to: loop, word: unit, probability: penalty)
            add(from: final, to: loop, word: unit, probability: penalty)
        }
        add(from: loop, to: final, word: nil, probability: 1)
        add(from: loop, to: start, word: nil, probability: 1)
    }

    /// The graph in PocketSphinx's FSG file format (`-fsg FILE`), so that plain PocketSphinx can
    /// decode the very language Heed does. Probabilities are written as they are; PocketSphinx
    /// applies its language weight when it reads them, as `Decoder.add` does, and closes the
    /// graph over its empty transitions.
    public func fsgText(name: String) -> String {
        var lines = ["FSG_BEGIN \(name)", "NUM_STATES \(stateCount)", "START_STATE \(start)", "FINAL_STATE \(final)"]
        for transition in transitions {
            let arc = "TRANSITION \(transition.from) \(transition.to) \(transition.probability)"
            lines.append(transition.word.map { "\(arc) \($0)" } ?? arc)
        }
        lines.append("FSG_END")
        return lines.joined(separator: "\n") + "\n"
    }
}
