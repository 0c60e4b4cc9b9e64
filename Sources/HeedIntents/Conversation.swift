/// The resolve / confirm / handle exchange around intents, as a state machine over what was
/// heard and when. It does no audio: the recognizer asks it what to listen for next
/// (`expectation`) and tells it what was heard; times are stream seconds, so a recording
/// replays the same exchange every time.
public struct Conversation: Sendable {
    /// What the next utterance should be decoded against.
    public enum Expectation: Equatable, Sendable {
        case command
        /// A value of this slot type (or "cancel").
        case slot(type: String)
        /// Yes or no.
        case confirmation
    }

    public struct Prompt: Equatable, Sendable {
        /// The intent so far (the slots heard until now).
        public var intent: Intent
        /// The slot asked for; nil for a confirmation.
        public var slot: String?
        public var question: String

        public init(intent: Intent, slot: String?, question: String) {
            self.intent = intent
            self.slot = slot
            self.question = question
        }
    }

    public enum AbortReason: String, Equatable, Sendable {
        /// The person said no to the confirmation.
        case declined
        /// The person said "cancel" instead of answering.
        case cancelled
        /// No answer within the timeout.
        case timedOut = "timed-out"
        /// Two answers in a row that were not an answer.
        case notUnderstood = "not-understood"
        /// The input ended while a question was open.
        case inputEnded = "input-ended"
    }

    public enum Event: Equatable, Sendable {
        case prompt(Prompt)
        /// The intent is complete and confirmed: act on it.
        case completed(Intent)
        case aborted(Intent, AbortReason)
    }

    /// How many answers that are not an answer end the exchange.
    public static let maxMisses = 2

    private let rules: [String: DialogueRules]
    private let slotValues: [String: [Context.SlotValue]]
    private var open: (intent: Intent, rules: DialogueRules, deadline: Double, misses: Int)?

    public private(set) var expectation = Expectation.command

    /// The rules and slot values of every context (later contexts win for the same intent).
    public init(contexts: [Context]) {
        var rules: [String: DialogueRules] = [:], values: [String: [Context.SlotValue]] = [:]
        for context in contexts {
            rules.merge(context.dialogue) { $1 }
            values.merge(context.slots) { $1 }
        }
        self.rules = rules
        self.slotValues = values
    }

    /// Whether any intent has a dialogue at all.
    public var isEmpty: Bool { rules.isEmpty }

    /// An utterance was heard (`words` as decoded against the current expectation; `intent` when
    /// it was a command) that began at `start` and ended at `end`.
    public mutating func heard(intent: Intent?, words: [String], understood: Bool, start: Double, end: Double) -> [Event] {
        var events = tick(at: start)
        guard var state = open else {
            guard understood, let intent else { return events }
            return events + begin(intent, at: end)
        }
        switch expectation {
        case .command:
            return events
        case .slot(let type):
            if ConfirmationWords.cancel.contains(words) {
                close()
                return events + [.aborted(state.intent, .cancelled)]
            }
            guard understood, let value = slotValues[type]?.first(where: { $0.words == words }),
                  let requirement = state.rules.required.first(where: { state.intent.slots[$0.slot] == nil }) else {
                return events + miss(at: end)
            }
            state.intent.slots[requirement.slot] = value.text
            close()
            events += advance(state.intent, rules: state.rules, at: end)
        case .confirmation:
            if understood && ConfirmationWords.yes.contains(words) {
                close()
                events.append(.completed(state.intent))
            } else if understood && ConfirmationWords.no.contains(words) {
                close()
                events.append(.aborted(state.intent, .declined))
            } else {
                events += miss(at: end)
            }
        }
        return events
    }

    /// Ends an open question whose time ran out by `time`.
    public mutating func tick(at time: Double) -> [Event] {
        guard let state = open, time > state.deadline else { return [] }
        close()
        return [.aborted(state.intent, .timedOut)]
    }

    /// The input ended: an open question stays unanswered.
    public mutating func finish() -> [Event] {
        guard let state = open else { return [] }
        close()
        return [.aborted(state.intent, .inputEnded)]
    }

    /// The template for the outcome of acting on `intent`, rendered (nil when the context has none).
    public func response(for intent: Intent, succeeded: Bool) -> String? {
        guard let rules = rules[intent.name], let template = succeeded ? rules.success : rules.failure else { return nil }
        return DialogueRules.render(template, for: intent)
    }

    private mutating func begin(_ intent: Intent, at time: Double) -> [Event] {
        guard let rules = rules[intent.name] else { return [.completed(intent)] }
        return advance(intent, rules: rules, at: time)
    }

    /// Asks for the next missing slot, then for confirmation, then completes.
    private mutating func advance(_ intent: Intent, rules: DialogueRules, at time: Double) -> [Event] {
        if let missing = rules.required.first(where: { intent.slots[$0.slot] == nil }) {
            open = (intent, rules, time + rules.timeout, 0)
            expectation = .slot(type: missing.type)
            return [.prompt(Prompt(intent: intent, slot: missing.slot, question: DialogueRules.render(missing.question, for: intent)))]
        }
        if let question = rules.confirmation {
            open = (intent, rules, time + rules.timeout, 0)
            expectation = .confirmation
            return [.prompt(Prompt(intent: intent, slot: nil, question: DialogueRules.render(question, for: intent)))]
        }
        return [.completed(intent)]
    }

    /// Something that is not an answer: ask again, or give up after `maxMisses`.
    private mutating func miss(at time: Double) -> [Event] {
        guard var state = open else { return [] }
        state.misses += 1
        if state.misses >= Self.maxMisses {
            close()
            return [.aborted(state.intent, .notUnderstood)]
        }
        let events = advance(state.intent, rules: state.rules, at: time)  // the same question again
        open?.misses = state.misses
        return events
    }

    private mutating func close() {
        open = nil
        expectation = .command
    }
}
