import HeedAudio
import HeedIntents

/// Scores of a suite run: per condition, acceptance, false acceptance and rejection, word error
/// rate, a confusion table, and each file's verdict.
public struct SuiteReport: Sendable {
    public enum Verdict: Equatable, Sendable {
        case passed
        case failed(String)
        /// The file could not be scored (missing, undecodable, a broken manifest entry).
        case error(String)
    }

    /// Counts for one condition (clean, a noise at one SNR, ...) over all suites.
    public struct Scores: Equatable, Sendable {
        /// Files that must give commands (or transcripts), and how many gave exactly that.
        public var positives = 0, accepted = 0
        /// Positives where nothing at all was understood.
        public var falseRejections = 0
        /// Positives understood as something else: a wrong intent or slot, or a command too many.
        /// For a device that acts on what it hears these are worse than rejections.
        public var wrongResults = 0
        /// Files that must give nothing, and how many gave a command anyway.
        public var negatives = 0, falseAcceptances = 0
        /// Negatives that gave nothing but still failed (a dialogue that asked the wrong questions).
        public var otherFailures = 0
        public var errors = 0
        /// Word errors (substitutions, insertions, deletions) over reference words, for
        /// expectations that give a transcript.
        public var wordErrors = 0, referenceWords = 0
        public var cpuSeconds = 0.0, audioSeconds = 0.0

        public var acceptance: Double { positives > 0 ? Double(accepted) / Double(positives) : 1 }
        public var falseAcceptance: Double { negatives > 0 ? Double(falseAcceptances) / Double(negatives) : 0 }
        public var falseRejection: Double { positives > 0 ? Double(falseRejections) / Double(positives) : 0 }
        public var wrongResult: Double { positives > 0 ? Double(wrongResults) / Double(positives) : 0 }
        public var wordErrorRate: Double? { referenceWords > 0 ? Double(wordErrors) / Double(referenceWords) : nil }
        public var allHeld: Bool { accepted == positives && falseAcceptances == 0 && otherFailures == 0 && errors == 0 }
    }

    public let suites: [TestSuite]
    public let conditions: [SuiteCondition]
    public let results: [CaseResult]
    /// What the noise conditions' SNRs were measured against.
    public let speechLevel: Perturbation.SpeechLevel

    public init(suites: [TestSuite], conditions: [SuiteCondition], results: [CaseResult],
                speechLevel: Perturbation.SpeechLevel = .loudestQuarter) {
        self.suites = suites
        self.conditions = conditions
        self.results = results
        self.speechLevel = speechLevel
    }

    /// Whether any condition mixes noise in, so that `speechLevel` matters.
    public var mixesNoise: Bool {
        conditions.contains { if case .noise = $0 { return true } else { return false } }
    }

    public func entry(of result: CaseResult) -> TestSuite.Entry { suites[result.suite].entries[result.entry] }

    public func verdict(of result: CaseResult) -> Verdict {
        if let error = result.error { return .error(error) }
        let entry = entry(of: result)
        let got = result.understood
        if let prompts = entry.prompts, prompts != result.prompts {
            return .failed("expected the questions [\(prompts.joined(separator: ", "))], asked [\(result.prompts.joined(separator: ", "))]")
        }
        if entry.isNegative {
            return got.isEmpty ? .passed : .failed("expected nothing understood, got \(Self.describe(got))")
        }
        if entry.expected.contains(where: { $0.intent != nil }) {
            let expected = entry.expected.compactMap(\.intent)
            if got.compactMap(\.intent) == expected && got.count == expected.count { return .passed }
            return .failed("expected \(Self.describe(expected)), got \(got.isEmpty ? "nothing understood" : Self.describe(got))")
        }
        let expected = Self.words(entry.expected.compactMap(\.transcript).joined(separator: " "))
        let heard = Self.words(got.map(\.transcript).joined(separator: " "))
        if heard == expected { return .passed }
        return .failed("expected \"\(expected.joined(separator: " "))\", got \(heard.isEmpty ? "nothing understood" : "\"\(heard.joined(separator: " "))\"")")
    }

    public func scores(condition: Int) -> Scores {
        var scores = Scores()
        for result in results where result.condition == condition {
            let entry = entry(of: result)
            scores.cpuSeconds += result.cpuSeconds
            scores.audioSeconds += result.audioSeconds
            let verdict = verdict(of: result)
            if case .error = verdict { scores.errors += 1; continue }
            if entry.isNegative {
                scores.negatives += 1
                if verdict != .passed {
                    if result.understood.isEmpty { scores.otherFailures += 1 } else { scores.falseAcceptances += 1 }
                }
                continue
            }
            scores.positives += 1
            if verdict == .passed { scores.accepted += 1 }
            if result.understood.isEmpty { scores.falseRejections += 1 } else if verdict != .passed { scores.wrongResults += 1 }
            let reference = entry.expected.compactMap(\.transcript)
            if !reference.isEmpty {
                let words = Self.words(reference.joined(separator: " "))
                scores.referenceWords += words.count
                scores.wordErrors += Self.editDistance(words, Self.words(result.understood.map(\.transcript).joined(separator: " ")))
            }
        }
        return scores
    }

    /// Label of what was expected against label of what was understood, utterance by utterance,
    /// counted over intent and negative entries (slot mistakes show in the failures instead).
    public func confusion(condition: Int) -> [String: [String: Int]] {
        var table: [String: [String: Int]] = [:]
        for result in results where result.condition == condition && result.error == nil {
            let entry = entry(of: result)
            guard entry.isNegative || entry.expected.contains(where: { $0.intent != nil }) else { continue }
            let expected = entry.expected.compactMap { $0.intent?.name }
            let got = result.understood.map { $0.intent?.name ?? Self.nothing }
            for index in 0..<max(expected.count, got.count, 1) {
                let row = index < expected.count ? expected[index] : Self.nothing
                let column = index < got.count ? got[index] : Self.nothing
                table[row, default: [:]][column, default: 0] += 1
            }
        }
        return table
    }

    /// The label of "no intent" in confusion tables.
    public static let nothing = "(none)"

    public static func describe(_ intents: [Intent]) -> String {
        intents.map { intent in
            intent.name + (intent.slots.isEmpty ? "" : "(" + intent.slots.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")")
        }.joined(separator: ", ")
    }

    static func describe(_ utterances: [Utterance]) -> String {
        utterances.map { utterance in
            utterance.intent.map { describe([$0]) } ?? "\"\(utterance.transcript)\""
        }.joined(separator: ", ")
    }

    /// Lowercased words without punctuation, as transcripts are compared.
    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "'" }).map(String.init)
    }

    /// Word edit distance (for the word error rate).
    static func editDistance(_ a: [String], _ b: [String]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
