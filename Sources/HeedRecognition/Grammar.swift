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

    /// Adds a loop of garbage "words" that stands for a whole utterance that is not a command:
    /// from the start to the end, one unit after another. A path through it marks the utterance
    /// as not understood. `penalty` is the probability charged per garbage unit; lower rejects
    /// less. Several loops can be added (say, words and single phones).
    ///
    /// The loop is not entered before or after a command ("please stop"): on real requests the
    /// loop's free words took a request's tail whenever its words fit the speaker a little better
    /// than the grammar's, and a one-word command could hide inside garbage around it
    /// (BENCHMARKS.md in git history, "Rejection").
    public mutating func addGarbageLoop(units: [String], penalty: Double) {
        guard !units.isEmpty else { return }
        let loop = addState()
        for unit in units {
            add(from: start, to: loop, word: unit, probability: penalty)
            add(from: loop, to: loop, word: unit, probability: penalty)
        }
        add(from: loop, to: final, word: nil, probability: 1)
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

extension Grammar {
    /// The same language as the smallest deterministic word graph: no two transitions out of a
    /// state on the same word, and no two states with the same futures (Brzozowski: reverse,
    /// determinize, twice). A context written as a list of expressions, each with its own copy
    /// of every slot's values, shrinks to one copy of each fan (the public coffee-maker context:
    /// 9,325 states to 57). Each state's ways on (its transitions, and stopping where it may
    /// end) share probability 1 equally, as a JSGF alternative's do in plain PocketSphinx.
    /// Call before adding variants or garbage loops: the graph must hold phrases only.
    public func minimized() -> Grammar {
        var automaton = WordAutomaton(self)
        automaton = automaton.reversed().determinized().reversed().determinized()
        var result = Grammar()
        // The automaton's start is the grammar's start; its states follow, so that the one
        // final state the decoder needs comes after every accepting state through an empty transition.
        var index: [Int: Int] = [automaton.start: result.start]
        for state in 0..<automaton.arcs.count where state != automaton.start { index[state] = result.addState() }
        for state in 0..<automaton.arcs.count {
            let ways = Double(automaton.arcs[state].count + (automaton.accepting.contains(state) ? 1 : 0))
            for arc in automaton.arcs[state].sorted(by: { ($0.word, $0.to) < ($1.word, $1.to) }) {
                result.add(from: index[state]!, to: index[arc.to]!, word: arc.word, probability: 1 / ways)
            }
            if automaton.accepting.contains(state) {
                result.add(from: index[state]!, to: result.final, word: nil, probability: 1 / ways)
            }
        }
        return result
    }
}

/// A word automaton for `Grammar.minimized`: word transitions only (empty ones closed over),
/// any number of start states before determinizing, one after.
private struct WordAutomaton {
    var arcs: [[(word: String, to: Int)]]
    var starts: Set<Int>
    var accepting: Set<Int>
    var start: Int { starts.first! }

    init(arcs: [[(word: String, to: Int)]], starts: Set<Int>, accepting: Set<Int>) {
        self.arcs = arcs
        self.starts = starts
        self.accepting = accepting
    }

    /// The grammar without its empty transitions: a state reaches through a word whatever the
    /// states in its empty closure reach, and accepts if any of them is final.
    init(_ grammar: Grammar) {
        var empty = Array(repeating: [Int](), count: grammar.stateCount)
        var words = Array(repeating: [(word: String, to: Int)](), count: grammar.stateCount)
        for transition in grammar.transitions {
            if let word = transition.word { words[transition.from].append((word, transition.to)) } else { empty[transition.from].append(transition.to) }
        }
        arcs = Array(repeating: [], count: grammar.stateCount)
        accepting = []
        for state in 0..<grammar.stateCount {
            var closure: Set<Int> = [state], pending = [state]
            while let current = pending.popLast() {
                for next in empty[current] where closure.insert(next).inserted { pending.append(next) }
            }
            for member in closure { arcs[state] += words[member] }
            if closure.contains(grammar.final) { accepting.insert(state) }
        }
        starts = [grammar.start]
    }

    func reversed() -> WordAutomaton {
        var reversedArcs = Array(repeating: [(word: String, to: Int)](), count: arcs.count)
        for (from, out) in arcs.enumerated() { for arc in out { reversedArcs[arc.to].append((arc.word, from)) } }
        return WordAutomaton(arcs: reversedArcs, starts: accepting, accepting: starts)
    }

    /// Subset construction from the start states; only states reachable from them are kept.
    func determinized() -> WordAutomaton {
        var ids: [[Int]: Int] = [:]
        var subsets: [[Int]] = []
        var result: [[(word: String, to: Int)]] = []
        var resultAccepting: Set<Int> = []
        func id(_ subset: [Int]) -> Int {
            if let known = ids[subset] { return known }
            ids[subset] = subsets.count
            subsets.append(subset)
            result.append([])
            return subsets.count - 1
        }
        _ = id(starts.sorted())
        var next = 0
        while next < subsets.count {
            let subset = subsets[next]
            var byWord: [String: Set<Int>] = [:]
            for state in subset { for arc in arcs[state] { byWord[arc.word, default: []].insert(arc.to) } }
            if subset.contains(where: accepting.contains) { resultAccepting.insert(next) }
            for (word, targets) in byWord.sorted(by: { $0.key < $1.key }) {
                let target = id(targets.sorted())
                result[next].append((word, target))
            }
            next += 1
        }
        return WordAutomaton(arcs: result, starts: [0], accepting: resultAccepting)
    }
}

extension Grammar {
    /// Where `words` lead through a deterministic graph (`minimized`): whether the sentence may
    /// end there, and whether more words may follow; nil when the graph does not hold them.
    /// The endpointer waits longer at a pause after words that are not yet a whole sentence,
    /// or that a sentence may go on from ("a latte" ... "with oat milk").
    public func continuation(of words: [String]) -> (canEnd: Bool, canContinue: Bool)? {
        var outgoing: [Int: [Transition]] = [:]
        for transition in transitions { outgoing[transition.from, default: []].append(transition) }
        var state = start
        for word in words {
            guard let next = outgoing[state]?.first(where: { $0.word == word }) else { return nil }
            state = next.to
        }
        let out = outgoing[state] ?? []
        return (out.contains { $0.word == nil && $0.to == final }, out.contains { $0.word != nil })
    }
}
