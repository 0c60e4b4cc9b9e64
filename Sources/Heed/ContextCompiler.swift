import HeedIntents
import HeedRecognition

/// Turns contexts into paths of the decoder's word graph, without enumerating sentences: each
/// choice, optional part, slot and macro becomes a fan of transitions between two states, so
/// the graph grows with the size of the context file, not with the number of sentences it allows.
enum ContextCompiler {
    /// Checks every word against the decoder's dictionary (adding the context's own
    /// pronunciations) and respells words the dictionary knows only in parts ("two-percent" as
    /// "two percent"). Throws one error listing every missing word and where it is used.
    static func prepare(_ contexts: [Context], for decoder: Decoder) throws(HeedError) -> [Context] {
        var prepared: [Context] = []
        for context in contexts {
            for (word, phones) in context.pronunciations where decoder.pronunciation(of: word) == nil {
                guard decoder.addWord(word, phones: phones) else {
                    throw HeedError(.configuration, "\(context.source): pronunciation of '\(word)' uses phones the acoustic model does not have: \(phones)")
                }
            }
            var missing: [String: [String]] = [:]
            let respelled = context.respelled { word in
                guard let parts = spell(word, for: decoder) else {
                    missing[word, default: []] += []
                    return [word]
                }
                return parts
            }
            if !missing.isEmpty {
                var lines: [String] = []
                for word in missing.keys.sorted() {
                    let uses = context.expressions.filter { $0.text.lowercased().contains(word) }.map { "line \($0.line): \"\($0.text)\"" }
                    let slotUses = context.slots.filter { $0.value.contains { $0.words.contains(word) } }.map { "slot type \($0.key)" }
                    lines.append("  \(word)  (\((uses + slotUses).first ?? "a macro"))")
                }
                throw HeedError(.configuration, """
                    \(context.source): \(missing.count) word\(missing.count == 1 ? " is" : "s are") not in the pronunciation dictionary:
                    \(lines.joined(separator: "\n"))
                    add them under `pronunciations:` in the context (word: "PH O N E S"), or in a CMUdict file passed with --dict
                    """)
            }
            prepared.append(respelled)
        }
        return prepared
    }

    /// The word as the dictionary knows it: itself, or its parts ("two-percent" as "two
    /// percent"); nil when the dictionary has neither.
    static func spell(_ word: String, for decoder: Decoder) -> [String]? {
        if decoder.pronunciation(of: word) != nil { return [word] }
        let parts = word.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        if parts.count > 1, parts.allSatisfy({ decoder.pronunciation(of: $0) != nil }) { return parts }
        return nil
    }

    /// A phrase respelled for the dictionary, and the words it lacks.
    static func spell(_ words: [String], for decoder: Decoder) -> (words: [String], missing: [String]) {
        var spelled: [String] = [], missing: [String] = []
        for word in words {
            if let parts = spell(word, for: decoder) { spelled += parts } else { missing.append(word); spelled.append(word) }
        }
        return (spelled, missing)
    }

    /// Adds every expression of `context` as paths from the grammar's start to its final state.
    static func add(_ context: Context, to grammar: inout Grammar) {
        for expression in context.expressions {
            build(expression.pattern, from: grammar.start, to: grammar.final, probability: 1, in: &grammar, context: context)
        }
    }

    /// Builds `pattern` between two states. Each way through a choice, a slot or a macro gets its
    /// share of the probability (1/n), so a richly branching context pays for its branches the
    /// way the garbage loops pay for their words, and neither path is free.
    private static func build(_ pattern: Pattern, from: Int, to: Int, probability: Double, in grammar: inout Grammar, context: Context) {
        switch pattern {
        case .word(let word):
            grammar.add(from: from, to: to, word: word, probability: probability)
        case .sequence(let items):
            guard !items.isEmpty else { return grammar.add(from: from, to: to, word: nil, probability: probability) }
            var state = from
            for (index, item) in items.enumerated() {
                let next = index == items.count - 1 ? to : grammar.addState()
                build(item, from: state, to: next, probability: index == 0 ? probability : 1, in: &grammar, context: context)
                state = next
            }
        case .choice(let items, let optional):
            let share = probability / Double(items.count + (optional ? 1 : 0))
            for item in items { build(item, from: from, to: to, probability: share, in: &grammar, context: context) }
            if optional { grammar.add(from: from, to: to, word: nil, probability: share) }
        case .slot(let type, _):
            let values = context.slots[type] ?? []
            let choices = values.map { Pattern.sequence($0.words.map(Pattern.word)) }
            build(.choice(choices, optional: false), from: from, to: to, probability: probability, in: &grammar, context: context)
        case .macro(let name):
            build(.choice(context.macros[name] ?? [], optional: false), from: from, to: to, probability: probability, in: &grammar, context: context)
        }
    }
}

extension CommandRecognizer {
    /// The size of the word graph a context compiles to (the minimal deterministic one the
    /// decoder searches), after checking its words against the dictionary (for `heed context check`). Decodes nothing, so it needs no authorization.
    public static func summary(of context: Context, options: RecognizerOptions = .init()) throws(HeedError) -> (states: Int, transitions: Int) {
        let decoder: Decoder
        do { decoder = try Decoder(configuration: options.decoder) } catch { throw HeedError(error) }
        let prepared = try ContextCompiler.prepare([context], for: decoder)
        var grammar = Grammar()
        ContextCompiler.add(prepared[0], to: &grammar)
        grammar = grammar.minimized()
        return (grammar.stateCount, grammar.transitions.count)
    }
}
