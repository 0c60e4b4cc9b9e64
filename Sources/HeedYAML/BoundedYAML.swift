import CYAML
import Foundation

/// Where a node or a syntax error starts in the text (1-based line and column).
public struct YAMLMark: Equatable, Sendable {
    public var line: Int
    public var column: Int
}

/// A YAML node: text, a list or a mapping (in the file's order), and where it starts.
public struct YAMLNode: Sendable {
    public enum ScalarStyle: Sendable { case plain, singleQuoted, doubleQuoted, literal, folded }

    public enum Content: Sendable {
        /// The text as written (quotes and escapes undone); `tag` only when the file gives one.
        case scalar(String, style: ScalarStyle, tag: String?)
        case sequence([YAMLNode])
        case mapping(YAMLMapping)
    }

    public var content: Content
    public var mark: YAMLMark

    /// A scalar's text (nil for a list or mapping).
    public var string: String? {
        if case .scalar(let text, _, _) = content { return text }
        return nil
    }

    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    public var mapping: YAMLMapping? {
        if case .mapping(let mapping) = content { return mapping }
        return nil
    }

    /// A scalar's number (an integer or a decimal fraction, quoted or not); nil when it is not one.
    public var number: Double? {
        guard let text = string else { return nil }
        return BoundedYAML.int(text).map(Double.init) ?? BoundedYAML.float(text)
    }

    /// A scalar in single or double quotes (its text starts one column after `mark`).
    public var isQuoted: Bool {
        if case .scalar(_, let style, _) = content { return style == .singleQuoted || style == .doubleQuoted }
        return false
    }
}

/// A mapping's entries in the file's order. Keys are always scalars (`BoundedYAML.ComplexKey`).
public struct YAMLMapping: Sendable, Sequence {
    public var entries: [(key: YAMLNode, value: YAMLNode)]

    public var keys: [YAMLNode] { entries.map(\.key) }
    public var isEmpty: Bool { entries.isEmpty }

    /// The value of the first entry whose key's text is `key`.
    public subscript(key: String) -> YAMLNode? { entries.first { $0.key.string == key }?.value }

    public func makeIterator() -> IndexingIterator<[(key: YAMLNode, value: YAMLNode)]> { entries.makeIterator() }
}

/// YAML read with libyaml, with a bound on its size after aliases are expanded.
///
/// An alias refers to an earlier node, and nine aliases of nine aliases of ... ("billion
/// laughs") make a few hundred bytes stand for hundreds of millions of nodes: building values
/// from that would hang and exhaust memory. The tree is composed here from libyaml's events, and
/// every node counts, an alias as many as the node it repeats, so such a file is refused as soon
/// as it passes the bound. Every file Heed reads as YAML (contexts, suites, app manifests, admin
/// policy) goes through here.
public enum BoundedYAML {
    /// Far above any real file (a large context has a few thousand nodes).
    public static let maxNodes = 200_000

    public struct TooLarge: Error, CustomStringConvertible {
        public var description: String { "the YAML expands to more than \(BoundedYAML.maxNodes) nodes (aliases of aliases?)" }
    }

    /// A list or mapping used as a mapping key (`[a, b]: 1`): valid YAML, but nothing Heed reads
    /// has such keys.
    public struct ComplexKey: Error, CustomStringConvertible {
        public var line: Int
        public var description: String { "a mapping key must be plain text, not a list or mapping (line \(line))" }
    }

    /// What libyaml (or the composer: an unknown alias, a second document) found wrong, and where.
    public struct SyntaxError: Error, CustomStringConvertible {
        public var problem: String
        public var mark: YAMLMark
        public var description: String { "\(problem) (line \(mark.line), column \(mark.column))" }
    }

    /// The document's node tree (nil for an empty one); throws `SyntaxError`, `TooLarge` or `ComplexKey`.
    public static func compose(_ text: String) throws -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw SyntaxError(problem: "out of memory", mark: YAMLMark(line: 0, column: 0)) }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var composer = Composer()
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    let problem = parser.problem.map { String(cString: $0) } ?? "not valid YAML"
                    throw SyntaxError(problem: problem, mark: mark(parser.problem_mark))
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return composer.document }
                try composer.take(event)
            }
        }
    }

    /// The document as Swift values: `[String: Any]`, `[Any]`, `String`, `Int`, `Double`, `Bool`
    /// or `NSNull` (plain scalars resolved as YAML 1.2's core schema does, plus YAML 1.1's
    /// yes/no/on/off; quoted ones are text). Throws as `compose` does.
    public static func load(_ text: String) throws -> Any? {
        try compose(text).map(value)
    }

    static func value(of node: YAMLNode) -> Any {
        switch node.content {
        case .scalar(let text, let style, let tag):
            return resolve(text, plain: style == .plain, tag: tag)
        case .sequence(let items):
            return items.map(value)
        case .mapping(let mapping):
            var values: [String: Any] = [:]
            for (key, item) in mapping { values[key.string ?? ""] = value(of: item) }
            return values
        }
    }

    /// The value a scalar stands for: by its tag when it has one of the standard ones, else text
    /// unless plain, else what its text looks like.
    static func resolve(_ text: String, plain: Bool, tag: String?) -> Any {
        let standard = "tag:yaml.org,2002:"
        switch tag {
        case (standard + "null")?: return NSNull()
        case (standard + "bool")?: return bool(text).map { $0 as Any } ?? text
        case (standard + "int")?: return int(text).map { $0 as Any } ?? text
        case (standard + "float")?: return float(text).map { $0 as Any } ?? text
        case nil where plain: break
        default: return text
        }
        if ["", "~", "null", "Null", "NULL"].contains(text) { return NSNull() }
        if let value = bool(text) { return value }
        if let value = int(text) { return value }
        if let value = float(text) { return value }
        return text
    }

    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON": true
        case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF": false
        default: nil
        }
    }

    /// Decimal, 0x hexadecimal or 0o octal, with an optional sign; nil when too large for `Int`.
    static func int(_ text: String) -> Int? {
        var digits = Substring(text)
        let negative = digits.first == "-"
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        var radix = 10
        if digits.hasPrefix("0x") { radix = 16; digits = digits.dropFirst(2) }
        else if digits.hasPrefix("0o") { radix = 8; digits = digits.dropFirst(2) }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }), let magnitude = Int(digits, radix: radix) else { return nil }
        return negative ? -magnitude : magnitude
    }

    static func float(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        // Digits with one point and an exponent at most: not "infinity", "nan" or hex floats.
        guard text.contains(where: \.isNumber), text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else { return nil }
        return Double(text)
    }

    static func mark(_ mark: yaml_mark_t) -> YAMLMark {
        YAMLMark(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    /// Builds the tree from libyaml's events, counting every node as the alias-expanded tree would have it.
    private struct Composer {
        private struct Open {
            var isMapping: Bool
            var items: [YAMLNode] = []
            var size = 1
            var anchor: String?
            var mark: YAMLMark
        }

        private(set) var document: YAMLNode?
        private var documents = 0
        private var open: [Open] = []
        private var anchors: [String: (node: YAMLNode, size: Int)] = [:]
        private var total = 0

        mutating func take(_ event: yaml_event_t) throws {
            let mark = BoundedYAML.mark(event.start_mark)
            switch event.type {
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                guard documents == 1 else { throw SyntaxError(problem: "expected one document, found another", mark: mark) }
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = scalar.value.map { String(decoding: UnsafeBufferPointer(start: $0, count: scalar.length), as: UTF8.self) } ?? ""
                let style: YAMLNode.ScalarStyle = switch scalar.style {
                case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
                case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
                case YAML_LITERAL_SCALAR_STYLE: .literal
                case YAML_FOLDED_SCALAR_STYLE: .folded
                default: .plain
                }
                let node = YAMLNode(content: .scalar(text, style: style, tag: Self.text(scalar.tag)), mark: mark)
                if let anchor = Self.text(scalar.anchor) { anchors[anchor] = (node, 1) }
                try add(node, size: 1)
            case YAML_ALIAS_EVENT:
                let name = Self.text(event.data.alias.anchor) ?? ""
                guard let anchored = anchors[name] else { throw SyntaxError(problem: "found undefined alias '\(name)'", mark: mark) }
                try add(anchored.node, size: anchored.size)
            case YAML_SEQUENCE_START_EVENT:
                try count(1)
                open.append(Open(isMapping: false, anchor: Self.text(event.data.sequence_start.anchor), mark: mark))
            case YAML_MAPPING_START_EVENT:
                try count(1)
                open.append(Open(isMapping: true, anchor: Self.text(event.data.mapping_start.anchor), mark: mark))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let done = open.popLast() else { return }
                let node: YAMLNode
                if done.isMapping {
                    var entries: [(key: YAMLNode, value: YAMLNode)] = []
                    for index in stride(from: 0, to: done.items.count - 1, by: 2) {
                        let key = done.items[index]
                        guard key.string != nil else { throw ComplexKey(line: key.mark.line) }
                        entries.append((key, done.items[index + 1]))
                    }
                    node = YAMLNode(content: .mapping(YAMLMapping(entries: entries)), mark: done.mark)
                } else {
                    node = YAMLNode(content: .sequence(done.items), mark: done.mark)
                }
                if let anchor = done.anchor { anchors[anchor] = (node, done.size) }
                // Counted as it was built.
                place(node, size: done.size)
            default:
                break
            }
        }

        /// A finished node (a scalar or an alias) into whatever is open; counts it.
        private mutating func add(_ node: YAMLNode, size: Int) throws {
            try count(size)
            place(node, size: size)
        }

        private mutating func place(_ node: YAMLNode, size: Int) {
            guard !open.isEmpty else { document = node; return }
            open[open.count - 1].items.append(node)
            open[open.count - 1].size += size
        }

        private mutating func count(_ size: Int) throws {
            total += size
            guard total <= BoundedYAML.maxNodes else { throw TooLarge() }
        }

        private static func text(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
        }
    }
}
