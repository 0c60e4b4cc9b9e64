import HeedRecognition

// The grammar's paths besides the commands' own: accent forms of the command words, and the
// garbage loops (common words, single phones) that let speech that is not a command leave.
extension CommandRecognizer {
    /// Lets each word of `graph` also be heard in its accents' forms (`options.accentVariantProbability`):
    /// they are dictionary words of their own ("start~ac", with alternates of its own when the
    /// word has several pronunciations), on parallel transitions that cost that probability. A
    /// linking r ("temperature~lr") goes only where a word that begins with a vowel can follow.
    /// Without `confusableOneWordForms`, a one-word command with a form one phone from another
    /// one-word command's pronunciation gets no forms where it is alone (see `oneWordCommandsNearOthers`).
    func addAccentVariants(to graph: inout Grammar, confusableOneWordForms: Bool = true) {
        guard let probability = options.accentVariantProbability else { return }
        let words = graph.words
        let variants = variantWords(for: words, marker: AccentVariants.marker, AccentVariants.forms)
        let notAlone = confusableOneWordForms ? [] : Self.oneWordCommandsNearOthers(in: graph) { [decoder] in decoder.pronunciations(of: $0) }
        graph.addVariants(variants, probability: probability, notAlone: notAlone)
        var beginsWithVowel: [String: Bool] = [:]
        graph.addVariants(variantWords(for: words, marker: AccentVariants.linkingMarker) { AccentVariants.linkingForms(pronunciations: $1) },
                          probability: probability) { [decoder] next in
            if let known = beginsWithVowel[next] { return known }
            let answer = decoder.pronunciations(of: next).contains(where: AccentVariants.beginsWithVowel)
            beginsWithVowel[next] = answer
            return answer
        }
    }

    /// The one-word commands of `graph` with an accent form one phone from another one-word
    /// command's pronunciation ("start" S T AA T, "stop" S T AA P).
    static func oneWordCommandsNearOthers(in graph: Grammar, pronunciations: (String) -> [String]) -> Set<String> {
        let alone = graph.oneWordPhrases
        return alone.filter { word in
            let others = alone.subtracting([word]).flatMap(pronunciations).map { $0.split(separator: " ") }
            return AccentVariants.forms(of: word, pronunciations: pronunciations(word)).contains { form in
                others.contains { editDistance(form.split(separator: " "), $0) <= 1 }
            }
        }
    }

    /// For each of `words` that has `forms`, a dictionary word of its own carrying them (the word
    /// and `marker`).
    func variantWords(for words: Set<String>, marker: String,
                              _ forms: (_ word: String, _ pronunciations: [String]) -> [String]) -> [String: [String]] {
        var variants: [String: [String]] = [:]
        for word in words {
            let forms = forms(word, decoder.pronunciations(of: word))
            let name = word + marker
            guard !forms.isEmpty, forms.allSatisfy({ decoder.addWord(name, phones: $0) }) else { continue }
            variants[word] = [name]
        }
        return variants
    }

    /// The two ways out for speech that is not a command: common words, and single phones for
    /// anything else.
    static func garbageUnits(commandWords: Set<String>, decoder: Decoder) -> (words: [String], phones: [String]) {
        let commandPhones = commandWords.compactMap { decoder.pronunciation(of: $0)?.split(separator: " ") }
        let words = GarbageWords.english.filter { word in
            guard let phones = decoder.pronunciation(of: word)?.split(separator: " ") else { return false }
            // A word one phone away from a command ("top" for "stop") would steal the command.
            return !commandPhones.contains { editDistance($0, phones) <= 1 }
        }
        return (words, addPhoneWords(to: decoder))
    }

    /// The command paths plus a garbage loop of each kind, at these per-unit probabilities; the
    /// word loop can also be entered from inside a phrase (`entryFromInside`).
    static func withGarbage(_ commandGraph: Grammar, _ garbage: (words: [String], phones: [String]),
                            wordPenalty: Double, phonePenalty: Double, entryFromInside: Double? = nil) -> Grammar {
        var grammar = commandGraph
        grammar.addGarbageLoop(units: garbage.words, penalty: wordPenalty, entryFromInside: entryFromInside)
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

    static func editDistance<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
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
