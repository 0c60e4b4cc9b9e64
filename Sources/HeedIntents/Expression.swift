/// One element of a Rhino-style expression.
///
/// `[a, b]` is a required choice, `(a, b)` an optional one, `$type:name` a slot filled from the
/// context's slot values, `@name` a macro (a named list of phrases).
public indirect enum Pattern: Equatable, Sendable {
    case word(String)
    case sequence([Pattern])
    case choice([Pattern], optional: Bool)
    case slot(type: String, name: String)
    case macro(String)
}

/// A problem in an expression, with the column (0-based, in characters) where it is.
public struct ExpressionError: Error, Equatable, Sendable {
    public var message: String
    public var column: Int
}

/// Parses one expression string into a `.sequence` pattern.
public enum ExpressionParser {
    public static func parse(_ text: String) throws(ExpressionError) -> Pattern {
        var parser = Parser(characters: Array(text))
        let pattern = try parser.sequence(until: nil)
        return pattern
    }

    private struct Parser {
        let characters: [Character]
        var index = 0

        mutating func skipSpaces() {
            while index < characters.count, characters[index].isWhitespace { index += 1 }
        }

        /// A sequence of elements up to `closer` (or the end), not consuming the closer.
        mutating func sequence(until closer: Character?, stopAtComma: Bool = false) throws(ExpressionError) -> Pattern {
            var items: [Pattern] = []
            while true {
                skipSpaces()
                // At the end: the caller of a bracketed sequence reports the unclosed bracket.
                guard index < characters.count else { break }
                let c = characters[index]
                if c == closer || (stopAtComma && c == ",") { break }
                switch c {
                case "[", "(":
                    let close: Character = c == "[" ? "]" : ")"
                    let open = index
                    index += 1
                    var alternatives: [Pattern] = []
                    while true {
                        let start = index
                        let alternative = try sequence(until: close, stopAtComma: true)
                        if case .sequence(let parts) = alternative, parts.isEmpty {
                            throw ExpressionError(message: "empty choice", column: start)
                        }
                        alternatives.append(alternative)
                        guard index < characters.count else { throw ExpressionError(message: "'\(c)' is never closed", column: open) }
                        if characters[index] == "," { index += 1; continue }
                        index += 1  // the closer
                        break
                    }
                    items.append(.choice(alternatives, optional: c == "("))
                case "]", ")":
                    throw ExpressionError(message: "'\(c)' has no matching '\(c == "]" ? "[" : "(")'", column: index)
                case ",":
                    throw ExpressionError(message: "',' outside a choice", column: index)
                case "$":
                    let start = index
                    index += 1
                    let type = name()
                    guard index < characters.count, characters[index] == ":" else {
                        throw ExpressionError(message: "a slot is written $type:name", column: start)
                    }
                    index += 1
                    let slotName = name()
                    guard !type.isEmpty, !slotName.isEmpty else { throw ExpressionError(message: "a slot is written $type:name", column: start) }
                    items.append(.slot(type: type, name: slotName))
                case "@":
                    let start = index
                    index += 1
                    let macro = name()
                    guard !macro.isEmpty else { throw ExpressionError(message: "a macro is written @name", column: start) }
                    items.append(.macro(macro))
                default:
                    let start = index
                    var word = ""
                    while index < characters.count, !characters[index].isWhitespace, !"[](),$@".contains(characters[index]) {
                        word.append(characters[index])
                        index += 1
                    }
                    guard !word.isEmpty else { throw ExpressionError(message: "unexpected '\(c)'", column: start) }
                    items.append(.word(word))
                }
            }
            return .sequence(items)
        }

        mutating func name() -> String {
            var out = ""
            while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" || characters[index] == "-" {
                out.append(characters[index])
                index += 1
            }
            return out
        }
    }
}
