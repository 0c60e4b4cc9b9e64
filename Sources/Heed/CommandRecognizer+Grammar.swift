import HeedRecognition

// The grammar's paths besides the commands' own: the garbage loops (common words, single phones)
// that let an utterance that is not a command leave as "not understood".
extension CommandRecognizer {
    /// The two ways out for speech that is not a command: common words, and single phones for
    /// anything else. Words that sound like a command ("down" beside "done") stay in: on real
    /// speech, taking them out turned those words into the command (BENCHMARKS.md in git
    /// history, "Rejection").
    static func garbageUnits(decoder: Decoder) -> (words: [String], phones: [String]) {
        (GarbageWords.english.filter { decoder.pronunciation(of: $0) != nil }, decoder.addPhoneWords(prefix: phoneWordPrefix))
    }

    /// The command paths plus a garbage loop of each kind, at these per-unit probabilities.
    static func withGarbage(_ commandGraph: Grammar, _ garbage: (words: [String], phones: [String]),
                            wordPenalty: Double, phonePenalty: Double) -> Grammar {
        var grammar = commandGraph
        grammar.addGarbageLoop(units: garbage.words, penalty: wordPenalty)
        grammar.addGarbageLoop(units: garbage.phones, penalty: phonePenalty)
        return grammar
    }
}
