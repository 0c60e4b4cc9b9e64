import HeedRecognition

// The grammar's paths besides the commands' own: the garbage loops (common words, single phones)
// that let an utterance that is not a command leave as "not understood".
extension CommandRecognizer {
    /// The two ways out for speech that is not a command: common words, and single phones for
    /// anything else. Words that sound like a command ("down" beside "done") stay in: on real
    /// speech, taking them out turned those words into the command (BENCHMARKS.md, "Rejection").
    static func garbageUnits(decoder: Decoder) -> (words: [String], phones: [String]) {
        (GarbageWords.english.filter { decoder.pronunciation(of: $0) != nil }, addPhoneWords(to: decoder))
    }

    /// The command paths plus a garbage loop of each kind, at these per-unit probabilities.
    static func withGarbage(_ commandGraph: Grammar, _ garbage: (words: [String], phones: [String]),
                            wordPenalty: Double, phonePenalty: Double) -> Grammar {
        var grammar = commandGraph
        grammar.addGarbageLoop(units: garbage.words, penalty: wordPenalty)
        grammar.addGarbageLoop(units: garbage.phones, penalty: phonePenalty)
        return grammar
    }

    /// One garbage "word" per phone of the model, so a loop of them can match any speech.
    static func addPhoneWords(to decoder: Decoder) -> [String] {
        let phones = ["AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH",
                      "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH",
                      "UH", "UW", "V", "W", "Y", "Z", "ZH"]
        return phones.compactMap { phone in
            let word = phoneWordPrefix + phone.lowercased()
            return decoder.addWord(word, phones: phone) ? word : nil
        }
    }
}
