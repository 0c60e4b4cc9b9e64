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
        guard let node = try Yams.compose(yaml: text) else { return nil }
        var budget = maxNodes
        try check(node, within: &budget)
        return node
    }

    /// The document as Swift values (`[String: Any]`, `[Any]`, `String`, `Int`, ...).
    public static func load(_ text: String) throws -> Any? {
        try compose(text).map { Constructor.default.any(from: $0) }
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
