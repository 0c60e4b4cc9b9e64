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

    /// The document's node tree; throws Yams' own errors, or `TooLarge`.
    public static func compose(_ text: String) throws -> Node? {
        guard let node = try Yams.compose(yaml: text) else { return nil }
        var budget = maxNodes
        guard fits(node, within: &budget) else { throw TooLarge() }
        return node
    }

    /// The document as Swift values (`[String: Any]`, `[Any]`, `String`, `Int`, ...).
    public static func load(_ text: String) throws -> Any? {
        try compose(text).map { Constructor.default.any(from: $0) }
    }

    /// Walks the tree as `Constructor` will, aliases expanded, until the budget is spent.
    private static func fits(_ node: Node, within budget: inout Int) -> Bool {
        budget -= 1
        guard budget >= 0 else { return false }
        switch node {
        case .scalar, .alias: return true
        case .sequence(let sequence): return sequence.allSatisfy { fits($0, within: &budget) }
        case .mapping(let mapping): return mapping.allSatisfy { fits($0.key, within: &budget) && fits($0.value, within: &budget) }
        }
    }
}
