import HeedYAML

/// What happens around one intent before it is acted on, from the context file's `dialogue:`
/// section (beside Rhino's `context:`, which stays as Rhino reads it):
///
/// ```yaml
/// dialogue:
///   orderDrink:
///     require:                  # asked in this order when missing
///       size: "What size?"
///     confirm: "Ready to order a {size} {drink}?"
///     success: "Your {size} {drink} is on its way."
///     failure: "Sorry, the {drink} could not be ordered."
///     timeout: 8                # seconds to answer (default 8)
/// ```
public struct DialogueRules: Equatable, Sendable {
    public struct Requirement: Equatable, Sendable {
        /// The slot's name in the intent, and the slot type whose values answer it.
        public var slot: String
        public var type: String
        public var question: String
    }

    public var required: [Requirement] = []
    /// The confirmation question (nil: act without asking).
    public var confirmation: String?
    /// What to say when the action succeeded or failed (templates with `{slot}` placeholders).
    public var success: String?
    public var failure: String?
    /// Seconds the person has to answer a question.
    public var timeout: Double = 8

    public static let defaultTimeout = 8.0

    /// `template` with each `{slot}` replaced by the intent's value ("" when the slot is unset).
    public static func render(_ template: String, for intent: Intent) -> String {
        var out = "", name: String?
        for character in template {
            if character == "{" && name == nil { name = ""; continue }
            if character == "}", let slot = name { out += intent.slots[slot] ?? ""; name = nil; continue }
            if name != nil { name!.append(character) } else { out.append(character) }
        }
        if let name { out += "{" + name }
        return out
    }

    /// Placeholders in `template` ("{size}" gives "size").
    static func placeholders(in template: String) -> [String] {
        var found: [String] = [], name: String?
        for character in template {
            if character == "{" { name = ""; continue }
            if character == "}", let slot = name { found.append(slot); name = nil; continue }
            name?.append(character)
        }
        return found
    }
}

/// Words that answer a confirmation question.
public enum ConfirmationWords {
    public static let yes: [[String]] = [["yes"], ["yeah"], ["sure"], ["confirm"], ["yes", "please"]]
    public static let no: [[String]] = [["no"], ["cancel"], ["no", "thanks"], ["nope"]]
    /// Said while a slot is asked for: drops the intent.
    public static let cancel: [[String]] = [["cancel"], ["never", "mind"]]
}

extension Context {
    /// Reads the `dialogue:` section (the root node is the whole file). Every intent, slot and
    /// placeholder it names must exist in the context's expressions.
    static func dialogue(from root: YAMLNode?, context: Context, fail: (String, YAMLNode?) -> ContextError) throws(ContextError) -> [String: DialogueRules] {
        guard let section = root?.mapping?["dialogue"] else { return [:] }
        guard let intents = section.mapping else { throw fail("`dialogue` maps intent names to their questions and responses", section) }
        let slotTypes = context.slotTypes
        var result: [String: DialogueRules] = [:]
        for (intentNode, body) in intents {
            guard let intent = intentNode.string, let types = slotTypes[intent] else {
                throw fail("dialogue for unknown intent '\(intentNode.string ?? "?")'", intentNode)
            }
            guard let fields = body.mapping else { throw fail("the dialogue of '\(intent)' is a mapping (require, confirm, success, failure, timeout)", body) }
            var rules = DialogueRules()
            for (keyNode, value) in fields {
                let key = keyNode.string ?? ""
                func text() throws(ContextError) -> String {
                    guard let text = value.string, !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw fail("`\(key)` needs text", value) }
                    for slot in DialogueRules.placeholders(in: text) where types[slot] == nil {
                        throw fail("'{\(slot)}' is not a slot of \(intent)", value)
                    }
                    return text
                }
                switch key {
                case "require":
                    guard let asked = value.mapping else { throw fail("`require` maps each slot to its question", value) }
                    for (slotNode, questionNode) in asked {
                        guard let slot = slotNode.string, let type = types[slot] else {
                            throw fail("'\(slotNode.string ?? "?")' is not a slot of \(intent)", slotNode)
                        }
                        guard let question = questionNode.string, !question.isEmpty else { throw fail("slot '\(slot)' needs a question", questionNode) }
                        rules.required.append(.init(slot: slot, type: type, question: question))
                    }
                case "confirm": rules.confirmation = try text()
                case "success": rules.success = try text()
                case "failure": rules.failure = try text()
                case "timeout":
                    guard let seconds = value.number, seconds > 0, seconds <= 600 else { throw fail("`timeout` is seconds, more than 0 and at most 600", value) }
                    rules.timeout = seconds
                default:
                    throw fail("unknown key '\(key)' (expected require, confirm, success, failure, timeout)", keyNode)
                }
            }
            result[intent] = rules
        }
        return result
    }

    /// Each intent's slot names and the slot type each one is filled from.
    public var slotTypes: [String: [String: String]] {
        func collect(_ pattern: Pattern, into types: inout [String: String]) {
            switch pattern {
            case .slot(let type, let name): types[name] = types[name] ?? type
            case .sequence(let items), .choice(let items, _): items.forEach { collect($0, into: &types) }
            case .word, .macro: break
            }
        }
        return expressions.reduce(into: [:]) { result, expression in collect(expression.pattern, into: &result[expression.intent, default: [:]]) }
    }
}
