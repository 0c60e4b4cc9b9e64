import Foundation
import HeedIntents

/// An action the person performed in an app, and the phrase that runs it again.
public struct Shortcut: Equatable, Sendable {
    /// The app's persistent identifier for the action; donating it again adds a time.
    public var id: String
    /// What the person sees in lists ("Order my favorite coffee").
    public var title: String
    /// What the person says, as written ("order my coffee").
    public var phrase: String
    /// The intent (with its slots) the phrase yields.
    public var intent: Intent
    /// Every time the action was donated, oldest first.
    public var donations: [Date]

    public init(id: String, title: String, phrase: String, intent: Intent, donations: [Date] = []) {
        self.id = id
        self.title = title
        self.phrase = phrase
        self.intent = intent
        self.donations = donations
    }

    /// The phrase as the decoder's words.
    public var words: [String] { Context.words(phrase) }
}

/// Why a donation was refused.
public struct ShortcutError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// The phrase breaks a rule (length, reserved, unpronounceable, taken).
        case invalidPhrase
        /// A field other than the phrase is wrong (empty id, title or intent).
        case invalidDonation
        /// No shortcut has this id.
        case notFound
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
