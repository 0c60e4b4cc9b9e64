import HeedIntents

/// What an invocation phrase must be: short, pronounceable, not reserved, not taken.
public enum PhraseRules {
    public static let maxWords = 6
    /// Longer phrases are allowed but harder to remember and to say the same way twice.
    public static let comfortableWords = 3

    /// Phrases no app may take: other assistants' wake phrases and emergency calls, which must
    /// never be swallowed by a shortcut.
    public static let reserved: [[String]] = [
        ["hey", "siri"], ["ok", "google"], ["okay", "google"], ["hey", "google"], ["alexa"],
        ["call", "911"], ["call", "112"], ["call", "999"],
        ["call", "nine", "one", "one"], ["call", "one", "one", "two"], ["call", "nine", "nine", "nine"],
        ["call", "emergency"], ["call", "emergency", "services"], ["call", "an", "ambulance"], ["call", "the", "police"],
    ]

    /// Checks `phrase` for `shortcut` and returns warnings (not errors) about it.
    ///
    /// - Parameters:
    ///   - others: the shortcuts already stored; one with another id and the same words takes it.
    ///   - meaningElsewhere: what the words already mean in the active commands and contexts
    ///     (nil: nothing); a different meaning takes it.
    ///   - missingWords: the phrase's words the pronunciation dictionary lacks.
    ///   - wakePhrase: the device's wake phrase, if it has one.
    public static func check(_ shortcut: Shortcut, others: [Shortcut], meaningElsewhere: Intent?,
                             missingWords: [String], wakePhrase: [String]? = nil) throws(ShortcutError) -> [String] {
        let words = shortcut.words
        guard !words.isEmpty else { throw ShortcutError(.invalidPhrase, "the phrase is empty") }
        guard words.count <= maxWords else {
            throw ShortcutError(.invalidPhrase, "'\(shortcut.phrase)' has \(words.count) words; a phrase has at most \(maxWords)")
        }
        if reserved.contains(words) || words == wakePhrase {
            throw ShortcutError(.invalidPhrase, "'\(shortcut.phrase)' is reserved (wake phrases and emergency calls cannot be shortcuts)")
        }
        if !missingWords.isEmpty {
            throw ShortcutError(.invalidPhrase, "'\(shortcut.phrase)' cannot be recognized: not in the pronunciation dictionary: \(missingWords.joined(separator: ", "))")
        }
        if let owner = others.first(where: { $0.id != shortcut.id && $0.words == words }) {
            throw ShortcutError(.invalidPhrase, "'\(shortcut.phrase)' is already the phrase of shortcut '\(owner.id)' (\(owner.title)); delete that one first or choose another phrase")
        }
        if let meaning = meaningElsewhere, meaning != shortcut.intent {
            throw ShortcutError(.invalidPhrase, "'\(shortcut.phrase)' already means \(describe(meaning)); choose another phrase")
        }
        return words.count > comfortableWords
            ? ["'\(shortcut.phrase)' has \(words.count) words; phrases of \(comfortableWords) or fewer are easier to say the same way every time"]
            : []
    }

    static func describe(_ intent: Intent) -> String {
        intent.name + (intent.slots.isEmpty ? "" : " (" + intent.slots.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")")
    }
}
