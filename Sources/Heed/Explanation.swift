import Foundation
import HeedRecognition

/// An account, line by line, of how each utterance was decided (`heed recognize --explain`):
/// how the noise stage judged it, what each decode heard, and which check turned a command away.
/// For people writing contexts and tuning options, who otherwise see only "understood": false. Decoding is the same with it on or off: the lines are made only
/// when someone listens (`CommandRecognizer.onExplanation`).
extension CommandRecognizer {
    /// Hands `line` to `onExplanation`; the line is made only when someone listens.
    func explain(_ line: @autoclosure () -> String) {
        onExplanation?(line())
    }

    /// The words `hypothesis` took, garbage (anything no command holds: the common-word loop, a
    /// phone spelled out) in brackets, and a note when no path reached the grammar's end.
    func describe(_ hypothesis: Hypothesis) -> String {
        let words = hypothesis.spokenWords.map { segment in
            commandWords.contains(Self.baseWord(segment.word)) ? segment.word : "[\(segment.word)]"
        }
        let text = words.isEmpty ? "nothing but silence and noise" : "\"\(words.joined(separator: " "))\""
        return hypothesis.reachedFinalState ? text : text + " (no path reached the grammar's end)"
    }

    /// How an utterance came out: its command (as a suite report names it) and confidence, or not understood.
    static func describe(_ utterance: Utterance?) -> String {
        guard let utterance else { return "nothing heard" }
        guard utterance.understood else { return "not understood" }
        return "\(SuiteReport.describe([utterance])) at confidence \(Self.formatted(utterance.confidence))"
    }

    /// The detector's decision on `words`, with the terms that weighed most.
    static func describe(_ detection: Detection, words: [String]) -> String {
        let e = detection.evidence
        let measured = "N-best share \(formatted(e.share)) (garbage \(formatted(e.garbageShare))), "
            + "\(formatted(e.loopShortfall)) per frame under the phone loop"
            + (e.heldToLanguage ? ", \(formatted(e.garbageShortfall)) under the garbage path" : "")
        let weighed = detection.terms.prefix(3).map { "\($0.feature) \(String(format: "%+.2f", $0.contribution))" }.joined(separator: ", ")
        let verdict = detection.accepted ? "accepted" : "turned away"
        return "detector: \"\(words.joined(separator: " "))\": \(measured); probability \(formatted(detection.probability)) "
            + "(\(weighed)), threshold \(formatted(detection.threshold)): \(verdict)"
    }

    static func formatted(_ value: Double) -> String { String(format: "%.2f", value) }
}
