import Foundation
import HeedYAML

/// A problem in a context file, pointing at the line and column.
public struct ContextError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based; 0 when the problem is not at one place.
    public var line: Int
    public var column: Int
    public var message: String
    /// The offending line of the file, for the caret display.
    public var text: String?

    public var description: String {
        guard line > 0 else { return "\(file): \(message)" }
        var out = "\(file):\(line):\(column): \(message)"
        if let text {
            out += "\n    \(text)\n    \(String(repeating: " ", count: max(0, column - 1)))^"
        }
        return out
    }
}

/// Intents with slots, in Picovoice Rhino's context format, read as it is.
///
/// ```yaml
/// context:
///   expressions:
///     orderDrink:
///       - "[make, get] me a $size:size $drink:drink (with $milk:milk)"
///   slots:
///     size: ["small", "large"]
///   macros:
///     please: ["please", "if you would"]
/// ```
public struct Context: Sendable {
    public struct Expression: Sendable {
        public var intent: String
        public var text: String
        public var pattern: Pattern
        public var line: Int
        public var column: Int
    }

    /// A slot value: what the context says (reported as is), and the words it is spoken as.
    public struct SlotValue: Equatable, Sendable {
        public var text: String
        public var words: [String]
    }

    public var source: String
    public private(set) var expressions: [Expression] = []
    public private(set) var slots: [String: [SlotValue]] = [:]
    public private(set) var macros: [String: [Pattern]] = [:]
    /// Pronunciations the context supplies for words the dictionary lacks ("word": "W ER D").
    public private(set) var pronunciations: [String: String] = [:]
    /// Questions, confirmations and responses per intent (the `dialogue:` section; see `DialogueRules`).
    public private(set) var dialogue: [String: DialogueRules] = [:]

    public var intentNames: [String] {
        var seen = Set<String>()
        return expressions.map(\.intent).filter { seen.insert($0).inserted }
    }

    public init(contentsOf url: URL) throws(ContextError) {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw ContextError(file: url.path, line: 0, column: 0,
                               message: FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "no such file")
        }
        try self.init(yaml: text, source: url.path)
    }

    public init(yaml: String, source: String) throws(ContextError) {
        self.source = source
        let lines = yaml.components(separatedBy: "\n")
        func fail(_ message: String, _ node: YAMLNode?, offset: Int = 0) -> ContextError {
            guard let mark = node?.mark else { return ContextError(file: source, line: 0, column: 0, message: message) }
            // Quoted scalars start one column before their first character.
            let quoted = node?.isQuoted == true ? 1 : 0
            let line = mark.line
            return ContextError(file: source, line: line, column: mark.column + quoted + offset, message: message,
                                text: line - 1 < lines.count ? lines[line - 1] : nil)
        }
        let root: YAMLNode?
        do { root = try BoundedYAML.compose(yaml) } catch {
            // Syntax errors say where; anything else cannot be placed.
            guard let syntax = error as? BoundedYAML.SyntaxError else { throw ContextError(file: source, line: 0, column: 0, message: "YAML error: \(error)") }
            let mark = syntax.mark
            throw ContextError(file: source, line: mark.line, column: mark.column, message: "YAML error: \(syntax.problem)",
                               text: mark.line - 1 < lines.count ? lines[mark.line - 1] : nil)
        }
        guard let context = root?.mapping?["context"], let body = context.mapping else {
            throw fail("expected a top-level `context:` with `expressions:`", root)
        }
        for key in body.keys.compactMap(\.string) where !["expressions", "slots", "macros", "pronunciations"].contains(key) {
            throw fail("unknown key '\(key)' (expected expressions, slots, macros, pronunciations)", body.keys.first { $0.string == key })
        }

        // Slots and macros first: expressions refer to them.
        if let slotNode = body["slots"] {
            guard let mapping = slotNode.mapping else { throw fail("`slots` maps each slot type to a list of values", slotNode) }
            for (typeNode, valuesNode) in mapping {
                guard let type = typeNode.string, let values = valuesNode.sequence, !values.isEmpty else {
                    throw fail("slot type '\(typeNode.string ?? "?")' needs a non-empty list of values", typeNode)
                }
                slots[type] = try values.map { (value) throws(ContextError) -> SlotValue in
                    guard let text = value.string, !Self.words(text).isEmpty else { throw fail("empty slot value", value) }
                    return SlotValue(text: text, words: Self.words(text))
                }
            }
        }
        if let macroNode = body["macros"] {
            guard let mapping = macroNode.mapping else { throw fail("`macros` maps each macro name to a list of phrases", macroNode) }
            for (nameNode, phrasesNode) in mapping {
                guard let name = nameNode.string, let phrases = phrasesNode.sequence, !phrases.isEmpty else {
                    throw fail("macro '\(nameNode.string ?? "?")' needs a non-empty list of phrases", nameNode)
                }
                macros[name] = try phrases.map { (phrase) throws(ContextError) -> Pattern in
                    do throws(ExpressionError) { return try Self.lowercased(ExpressionParser.parse(phrase.string ?? "")) } catch {
                        throw fail(error.message, phrase, offset: error.column)
                    }
                }
            }
        }
        if let pronunciationNode = body["pronunciations"] {
            guard let mapping = pronunciationNode.mapping else { throw fail("`pronunciations` maps words to phones (\"W ER D\")", pronunciationNode) }
            for (word, phones) in mapping {
                guard let w = word.string, let p = phones.string, !p.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw fail("a pronunciation is a word and its phones", word)
                }
                pronunciations[w.lowercased()] = p.uppercased()
            }
        }
        guard let expressionNode = body["expressions"], let intents = expressionNode.mapping, !intents.isEmpty else {
            throw fail("`expressions` must map intent names to lists of expressions", body["expressions"] ?? context)
        }
        for (intentNode, list) in intents {
            guard let intent = intentNode.string, let items = list.sequence, !items.isEmpty else {
                throw fail("intent '\(intentNode.string ?? "?")' needs a list of expressions", intentNode)
            }
            for item in items {
                guard let text = item.string else { throw fail("an expression is a string", item) }
                let pattern: Pattern
                do throws(ExpressionError) { pattern = try Self.lowercased(ExpressionParser.parse(text)) } catch {
                    throw fail(error.message, item, offset: error.column)
                }
                if let problem = Self.unknownReference(in: pattern, text: text, slots: slots, macros: macros) {
                    throw fail(problem.message, item, offset: problem.column)
                }
                expressions.append(Expression(intent: intent, text: text, pattern: pattern, line: item.mark.line, column: item.mark.column))
            }
        }
        for key in (root?.mapping.map { Array($0.keys) } ?? []).compactMap(\.string) where !["context", "dialogue"].contains(key) {
            throw fail("unknown top-level key '\(key)' (expected context, dialogue)", root?.mapping?.keys.first { $0.string == key })
        }
        dialogue = try Self.dialogue(from: root, context: self) { message, node in fail(message, node) }
    }

    /// Words as the dictionary spells them: lower case, surrounding punctuation dropped.
    public static func words(_ text: String) -> [String] {
        text.split(whereSeparator: \.isWhitespace)
            .map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".,!?;:\"")) }
            .filter { !$0.isEmpty }
    }

    static func lowercased(_ pattern: Pattern) -> Pattern {
        switch pattern {
        case .word(let w): return .word(w.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".,!?;:\"")))
        case .sequence(let items): return .sequence(items.map(lowercased))
        case .choice(let items, let optional): return .choice(items.map(lowercased), optional: optional)
        case .slot, .macro: return pattern
        }
    }

    private static func unknownReference(in pattern: Pattern, text: String, slots: [String: [SlotValue]], macros: [String: [Pattern]]) -> ExpressionError? {
        func column(of needle: String) -> Int {
            guard let range = text.range(of: needle) else { return 0 }
            return text.distance(from: text.startIndex, to: range.lowerBound)
        }
        switch pattern {
        case .word: return nil
        case .sequence(let items), .choice(let items, _):
            for item in items { if let problem = unknownReference(in: item, text: text, slots: slots, macros: macros) { return problem } }
            return nil
        case .slot(let type, let name):
            return slots[type] == nil ? ExpressionError(message: "unknown slot type '\(type)'", column: column(of: "$\(type):\(name)")) : nil
        case .macro(let name):
            return macros[name] == nil ? ExpressionError(message: "unknown macro '@\(name)'", column: column(of: "@\(name)")) : nil
        }
    }

    /// Every literal word the context can produce (expressions, macros, slot values).
    public var vocabulary: Set<String> {
        func collect(_ pattern: Pattern, into words: inout Set<String>) {
            switch pattern {
            case .word(let w): words.insert(w)
            case .sequence(let items), .choice(let items, _): items.forEach { collect($0, into: &words) }
            case .slot, .macro: break
            }
        }
        var words = Set<String>()
        for expression in expressions { collect(expression.pattern, into: &words) }
        for phrases in macros.values { phrases.forEach { collect($0, into: &words) } }
        for values in slots.values { values.forEach { words.formUnion($0.words) } }
        return words
    }

    /// The same context with every word replaced by the words the decoder spells it as (e.g.
    /// "two-percent" as "two percent" when the dictionary has only the parts).
    public func respelled(_ spell: (String) -> [String]) -> Context {
        func map(_ pattern: Pattern) -> Pattern {
            switch pattern {
            case .word(let w):
                let parts = spell(w)
                return parts.count == 1 ? .word(parts[0]) : .sequence(parts.map(Pattern.word))
            case .sequence(let items): return .sequence(items.map(map))
            case .choice(let items, let optional): return .choice(items.map(map), optional: optional)
            case .slot, .macro: return pattern
            }
        }
        var copy = self
        copy.expressions = expressions.map { var e = $0; e.pattern = map(e.pattern); return e }
        copy.macros = macros.mapValues { $0.map(map) }
        copy.slots = slots.mapValues { $0.map { SlotValue(text: $0.text, words: $0.words.flatMap(spell)) } }
        return copy
    }

    // MARK: Matching

    /// The intent and slots a word sequence carries, or nil when no expression produces it.
    public func match(_ words: [String]) -> Intent? {
        let matcher = Matcher(slots: slots, macros: macros)
        for expression in expressions {
            if let slots = matcher.match(expression.pattern, words[...], bindings: [:], then: { rest, bindings in rest.isEmpty ? bindings : nil }) {
                return Intent(name: expression.intent, slots: slots)
            }
        }
        return nil
    }

    /// Backtracking matching against the slots and macros alone, so the closures it nests carry
    /// two references, not a copy of the context (matching is on every decode's path).
    private struct Matcher {
        let slots: [String: [SlotValue]]
        let macros: [String: [Pattern]]

        /// Matches `pattern` at the start of `words`; `then` continues with the rest.
        func match(_ pattern: Pattern, _ words: ArraySlice<String>, bindings: [String: String],
                   then: (ArraySlice<String>, [String: String]) -> [String: String]?) -> [String: String]? {
            switch pattern {
            case .word(let w):
                guard words.first == w else { return nil }
                return then(words.dropFirst(), bindings)
            case .sequence(let items):
                return match(items[...], words, bindings: bindings, then: then)
            case .choice(let items, let optional):
                for item in items {
                    if let found = match(item, words, bindings: bindings, then: then) { return found }
                }
                return optional ? then(words, bindings) : nil
            case .slot(let type, let name):
                for value in slots[type] ?? [] where words.starts(with: value.words) {
                    var b = bindings
                    b[name] = value.text
                    if let found = then(words.dropFirst(value.words.count), b) { return found }
                }
                return nil
            case .macro(let name):
                return match(.choice(macros[name] ?? [], optional: false), words, bindings: bindings, then: then)
            }
        }

        private func match(_ items: ArraySlice<Pattern>, _ words: ArraySlice<String>, bindings: [String: String],
                           then: (ArraySlice<String>, [String: String]) -> [String: String]?) -> [String: String]? {
            guard let first = items.first else { return then(words, bindings) }
            return match(first, words, bindings: bindings) { rest, b in
                match(items.dropFirst(), rest, bindings: b, then: then)
            }
        }
    }
}
