import CYaml
import Yams

/// YAML read with a bound on its size after aliases are expanded.
///
/// An alias refers to an earlier node, and nine aliases of nine aliases of ... ("billion
/// laughs") make a few hundred bytes stand for hundreds of millions of nodes: building Swift
/// values from that would hang and exhaust memory. Every file Heed reads as YAML (contexts,
/// suites, app manifests, admin policy) goes through here.
public enum BoundedYAML {
    /// Far above any real file (a large context has a few thousand nodes).
    public static let maxNodes = 200_000

    public struct TooLarge: Error, CustomStringConvertible {
        public var description: String { "the YAML expands to more than \(BoundedYAML.maxNodes) nodes (aliases of aliases?)" }
    }

    /// A list or mapping used as a mapping key (`[a, b]: 1`): valid YAML, but nothing Heed reads
    /// has such keys, and Yams cannot build Swift values from them (it traps).
    public struct ComplexKey: Error, CustomStringConvertible {
        public var line: Int?
        public var description: String { "a mapping key must be plain text, not a list or mapping" + (line.map { " (line \($0))" } ?? "") }
    }

    /// The document's node tree; throws Yams' own errors, `TooLarge` or `ComplexKey`.
    public static func compose(_ text: String) throws -> Node? {
        // Yams itself hashes mapping keys while composing, which an aliased key makes
        // exponential too: measure the expanded size from libyaml's events first, in one pass.
        guard expandedSize(of: text) <= maxNodes else { throw TooLarge() }
        guard let node = try Yams.compose(yaml: text) else { return nil }
        var budget = maxNodes
        try check(node, within: &budget)
        return node
    }

    /// The document as Swift values (`[String: Any]`, `[Any]`, `String`, `Int`, ...); throws as
    /// `compose` does, and `NumberTooLarge`.
    public static func load(_ text: String) throws -> Any? {
        guard let node = try compose(text) else { return nil }
        try checkNumbers(in: node)
        return Constructor.default.any(from: node)
    }

    /// A YAML 1.1 base-60 integer ("1:30:00") too large for `Int`. Yams multiplies its digits out
    /// unchecked and traps: "844444444444444444:44", found by the fuzzer in an app manifest,
    /// crashed `heed test` and `heed auth` on a suite manifest or an admin policy as well.
    public struct NumberTooLarge: Error, CustomStringConvertible {
        public var text: String
        public var line: Int?
        public var description: String {
            "'\(text)' is a base-60 number too large to hold" + (line.map { " (line \($0))" } ?? "") + "; quote it if it is text"
        }
    }

    /// Throws `NumberTooLarge` for the first such integer in `node`, key or value.
    private static func checkNumbers(in node: Node) throws {
        switch node {
        case .scalar(let scalar):
            if node.tag.rawValue == Tag.Name.int.rawValue, isOversizedBase60(scalar.string) { throw NumberTooLarge(text: scalar.string, line: node.mark.map { $0.line }) }
        case .sequence(let sequence):
            for item in sequence { try checkNumbers(in: item) }
        case .mapping(let mapping):
            for (key, value) in mapping {
                try checkNumbers(in: key)
                try checkNumbers(in: value)
            }
        case .alias:
            return
        }
    }

    /// Whether `text` is a base-60 integer ("-1:30:00") whose value does not fit in `Int`.
    static func isOversizedBase60(_ text: String) -> Bool {
        guard text.contains(":") else { return false }
        // Yams drops YAML 1.1's digit separators before it reads the number ("8_444:44").
        let digits = text.filter { $0 != "_" }
        let unsigned = digits.hasPrefix("-") || digits.hasPrefix("+") ? digits.dropFirst() : digits[...]
        var value = 0
        for part in unsigned.split(separator: ":", omittingEmptySubsequences: false) {
            guard let digit = Int(part, radix: 10) else { return false }  // not an integer: Yams reads it as text
            let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 60)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(digit)
            if overflowShift || overflowAdd { return true }
            value = sum
        }
        return false
    }

    /// How many nodes the document has with every alias expanded, counted from libyaml's event
    /// stream: an anchored node's size is remembered, an alias adds it again. Saturates just
    /// above `maxNodes`. A document with a syntax error counts up to the error.
    static func expandedSize(of text: String) -> Int {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return 0 }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer -> Int in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            let limit = maxNodes + 1
            var anchors: [String: Int] = [:]
            var open: [(size: Int, anchor: String?)] = [(0, nil)]  // the bottom collects the document
            func anchor(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
                pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
            }
            func add(_ size: Int) { open[open.count - 1].size = min(limit, open[open.count - 1].size + size) }
            var event = yaml_event_t()
            while yaml_parser_parse(&parser, &event) == 1 {
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_SCALAR_EVENT:
                    if let name = anchor(event.data.scalar.anchor) { anchors[name] = 1 }
                    add(1)
                case YAML_ALIAS_EVENT:
                    add(anchor(event.data.alias.anchor).flatMap { anchors[$0] } ?? 1)
                case YAML_SEQUENCE_START_EVENT:
                    open.append((1, anchor(event.data.sequence_start.anchor)))
                case YAML_MAPPING_START_EVENT:
                    open.append((1, anchor(event.data.mapping_start.anchor)))
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    guard open.count > 1 else { return open[0].size }
                    let done = open.removeLast()
                    if let name = done.anchor { anchors[name] = done.size }
                    add(done.size)
                case YAML_STREAM_END_EVENT:
                    return open[0].size
                default:
                    break
                }
                if open[0].size >= limit { return limit }
            }
            // A syntax error: Yams will report it, but it builds (and hashes) what comes before
            // it first, so that part counts.
            return min(limit, open.reduce(0) { $0 + $1.size })
        }
    }

    /// Walks the tree as `Constructor` will, aliases expanded, until the budget is spent.
    private static func check(_ node: Node, within budget: inout Int) throws {
        budget -= 1
        guard budget >= 0 else { throw TooLarge() }
        switch node {
        case .scalar, .alias:
            return
        case .sequence(let sequence):
            for item in sequence { try check(item, within: &budget) }
        case .mapping(let mapping):
            for (key, value) in mapping {
                guard case .scalar = key else { throw ComplexKey(line: key.mark?.line) }
                try check(value, within: &budget)
            }
        }
    }
}
