/// Pronunciations for accents the dictionary does not spell. CMUdict is General American, which
/// says every r; most English outside North America (England, Australia, New Zealand, South
/// Africa, much of the Caribbean) is non-rhotic: an r after a vowel is said only when a vowel
/// follows. A British "start" is S T AA T, which the American model hears as "stop" (S T AA P)
/// sooner than as S T AA R T; before a vowel the r comes back (see `linkingR`). The stressed
/// vowel of "done", said open, is heard as AA (see `openStrut`), and British English keeps the
/// yod of "resume" (see `yod`), and says the BATH words with the open vowel of "father" (see
/// `bathVowel`).
public enum AccentVariants {
    /// What the dictionary word carrying a word's variants is called: the word and this
    /// ("start~ac"). `Decoder.baseWord` takes it off again.
    public static let marker = "~ac"
    /// The same for the linking-r forms (`linkingR`), which only go before a vowel.
    public static let linkingMarker = "~lr"

    static let vowels: Set<Substring> = ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"]

    /// `phones` ("S T AA R T") as a non-rhotic speaker says them ("S T AA T"), or nil when
    /// they are the same. An r after a vowel goes unless a vowel follows it ("very" keeps its
    /// r); the r-coloured vowel ER becomes AH, with its r kept before a vowel ("operate").
    public static func nonRhotic(_ phones: String) -> String? {
        let phones = phones.split(separator: " ")
        var result: [Substring] = []
        for (index, phone) in phones.enumerated() {
            let vowelFollows = index + 1 < phones.count && vowels.contains(phones[index + 1])
            switch phone {
            case "ER":
                result.append("AH")
                if vowelFollows { result.append("R") }
            case "R" where index > 0 && vowels.contains(phones[index - 1]) && !vowelFollows:
                continue
            default:
                result.append(phone)
            }
        }
        return result == phones ? nil : result.joined(separator: " ")
    }

    /// The non-rhotic form of a word that ends in an r sound, with the r said after all, as a
    /// non-rhotic speaker says it before a word that begins with a vowel ("temperature in" T EH
    /// M P R AH CH AH R IH N); nil for other words.
    public static func linkingR(_ phones: String) -> String? {
        guard let last = phones.split(separator: " ").last, last == "ER" || last == "R",
              let dropped = nonRhotic(phones), !dropped.hasSuffix("R") else { return nil }
        return dropped + " R"
    }

    /// The linking-r forms of a word's pronunciations (`linkingR`), each once.
    public static func linkingForms(pronunciations: [String]) -> [String] {
        unique(pronunciations.map(linkingR), besides: pronunciations)
    }

    /// Whether a pronunciation ("IH N") begins with a vowel, where a linking r is said.
    public static func beginsWithVowel(_ phones: String) -> Bool {
        phones.split(separator: " ").first.map { vowels.contains($0) } ?? false
    }

    /// Words whose one vowel, AH, is nearly always the unstressed schwa in a phrase ("the", "a").
    static let reducedWords: Set<String> = ["a", "an", "and", "as", "but", "can", "does", "from", "just", "must",
                                            "of", "some", "than", "that", "the", "to", "us", "was", "will"]

    /// `phones` with their one vowel AH said open, as AA, or nil. CMUdict writes both the
    /// stressed vowel of "done" and the schwa of "the" as AH, and the model's AH is mostly schwa.
    /// A stressed STRUT vowel said open, as much of England and Australia say it (and espeak-ng
    /// in every English voice), is heard as AA: "done" fits D AA N far better than D AH N. Only
    /// one-syllable content words: in longer words the dictionary does not say which vowel is
    /// stressed.
    public static func openStrut(_ word: String, _ phones: String) -> String? {
        let parts = phones.split(separator: " ")
        let vowelsIn = parts.filter { vowels.contains($0) }
        guard vowelsIn == ["AH"], !reducedWords.contains(word) else { return nil }
        return parts.map { $0 == "AH" ? "AA" : $0 }.joined(separator: " ")
    }

    /// `phones` with the yod that General American drops and British English keeps ("resume"
    /// R IH Z Y UW M, "news" N Y UW Z), or nil. Only where the spelling has a u ("u", "ew",
    /// "eu") after T, D, N, S, Z or TH: "two", "do" and "soon" have no yod in any accent. After L
    /// the yod is old-fashioned even in England ("blue"), so it is left out.
    public static func yod(_ word: String, _ phones: String) -> String? {
        guard word.contains("u") || word.contains("ew") else { return nil }
        let parts = phones.split(separator: " ")
        var result: [Substring] = []
        for (index, phone) in parts.enumerated() {
            if phone == "UW", index > 0, yodConsonants.contains(parts[index - 1]) { result.append("Y") }
            result.append(phone)
        }
        return result.count == parts.count ? nil : result.joined(separator: " ")
    }

    static let yodConsonants: Set<Substring> = ["T", "D", "N", "S", "Z", "TH"]

    /// `phones` with the vowel of "trap" (AE) said as the vowel of "father" (AA) where southern
    /// British English does ("bathroom" B AA TH R UW M, "after", "last", "pass"), or nil: before F
    /// or TH that no vowel follows, and before S at the end of the word or before P, T or K. The
    /// split follows no rule exactly; `trapWords` are common words that fit it and keep AE.
    public static func bathVowel(_ word: String, _ phones: String) -> String? {
        guard !trapWords.contains(word), !word.hasSuffix("astic") else { return nil }
        let parts = phones.split(separator: " ")
        var result = parts
        for index in parts.indices where parts[index] == "AE" && index + 1 < parts.count {
            let next = parts[index + 1]
            let after = index + 2 < parts.count ? parts[index + 2] : nil
            let broadens = switch next {
            case "F", "TH": after.map { !vowels.contains($0) } ?? true
            case "S": after.map { bathStops.contains($0) } ?? true
            default: false
            }
            if broadens { result[index] = "AA" }
        }
        return result == parts ? nil : result.joined(separator: " ")
    }

    static let bathStops: Set<Substring> = ["P", "T", "K"]
    static let trapWords: Set<String> = ["gas", "mass", "math", "maths", "crass", "lass", "aspect", "asterisk", "astronaut"]

    /// Every accent form of `word` that its dictionary pronunciations lack, each once: non-rhotic,
    /// open STRUT, the kept yod and the BATH vowel. The open vowel is only ever the dictionary's
    /// AH, never the AH a lost r leaves of ER ("burn" B AH N is not also B AA N).
    public static func forms(of word: String, pronunciations: [String]) -> [String] {
        unique(pronunciations.flatMap { phones -> [String?] in
            let rLess = nonRhotic(phones)
            // A British "after" is AA F T AH: both at once.
            return [rLess, openStrut(word, phones), yod(word, phones), bathVowel(word, phones), rLess.flatMap { bathVowel(word, $0) }]
        }, besides: pronunciations)
    }

    /// The forms in `candidates`, in order and each once, that are not among `pronunciations`.
    static func unique(_ candidates: [String?], besides pronunciations: [String]) -> [String] {
        var forms: [String] = []
        for form in candidates.compactMap({ $0 }) where !pronunciations.contains(form) && !forms.contains(form) {
            forms.append(form)
        }
        return forms
    }
}
