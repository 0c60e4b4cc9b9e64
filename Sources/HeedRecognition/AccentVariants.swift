/// Pronunciations for accents the dictionary does not spell. CMUdict is General American, which
/// says every r; most English outside North America (England, Australia, New Zealand, South
/// Africa, much of the Caribbean) is non-rhotic: an r after a vowel is said only when a vowel
/// follows. A British "start" is S T AA T, which the American model hears as "stop" (S T AA P)
/// sooner than as S T AA R T.
public enum AccentVariants {
    /// What the dictionary word carrying a variant is called: the word and this ("start~nr").
    /// `Decoder.baseWord` takes it off again.
    public static let marker = "~nr"

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
}
