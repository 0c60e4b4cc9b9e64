import Testing
@testable import HeedRecognition

/// Non-rhotic, linking-r, open-vowel, yod and BATH-vowel pronunciations from the dictionary's General American ones.
struct AccentVariantsTests {
    @Test(arguments: [
        ("S T AA R T", "S T AA T"),            // start
        ("T AY M ER", "T AY M AH"),            // timer
        ("AO R D ER", "AO D AH"),              // order
        ("K AA R", "K AA"),                    // car
        ("AA P ER EY T", "AA P AH R EY T"),    // operate: the r before a vowel stays
        ("P AW ER", "P AW AH"),                // power
    ])
    func anRAfterAVowelIsNotSaid(_ general: String, _ nonRhotic: String) {
        #expect(AccentVariants.nonRhotic(general) == nonRhotic)
    }

    @Test(arguments: ["V EH R IY", "D R IH L", "S T AA P", "R EH D"])
    func wordsWithoutSuchAnRHaveNoVariant(_ phones: String) {
        #expect(AccentVariants.nonRhotic(phones) == nil)
    }

    @Test(arguments: [
        ("done", "D AH N", "D AA N"),
        ("one", "W AH N", "W AA N"),
        ("shut", "SH AH T", "SH AA T"),
        ("up", "AH P", "AA P"),
    ])
    func theOneStressedVowelOfAShortWordCanBeOpen(_ word: String, _ general: String, _ open: String) {
        #expect(AccentVariants.openStrut(word, general) == open)
    }

    /// Longer words do not say which vowel is stressed; "the" and "a" are schwa in a phrase.
    @Test(arguments: [("cancel", "K AE N S AH L"), ("lower", "L OW ER"), ("the", "DH AH"), ("a", "AH"), ("stop", "S T AA P")])
    func otherWordsKeepTheirVowels(_ word: String, _ phones: String) {
        #expect(AccentVariants.openStrut(word, phones) == nil)
    }

    @Test(arguments: [
        ("resume", "R IH Z UW M", "R IH Z Y UW M"),
        ("tuesday", "T UW Z D EY", "T Y UW Z D EY"),
        ("new", "N UW", "N Y UW"),
        ("student", "S T UW D AH N T", "S T Y UW D AH N T"),
    ])
    func aUAfterAnAlveolarKeepsItsYod(_ word: String, _ general: String, _ british: String) {
        #expect(AccentVariants.yod(word, general) == british)
    }

    /// No u in the spelling, no yod in any accent; after L it is old-fashioned; a Y already there stays one.
    @Test(arguments: [("two", "T UW"), ("do", "D UW"), ("soon", "S UW N"), ("blue", "B L UW"), ("music", "M Y UW Z IH K"), ("true", "T R UW")])
    func otherWordsHaveNoYod(_ word: String, _ phones: String) {
        #expect(AccentVariants.yod(word, phones) == nil)
    }

    @Test(arguments: [
        ("bathroom", "B AE TH R UW M", "B AA TH R UW M"),
        ("after", "AE F T ER", "AA F T ER"),
        ("last", "L AE S T", "L AA S T"),
        ("pass", "P AE S", "P AA S"),
        ("half", "HH AE F", "HH AA F"),
    ])
    func aBathWordCanHaveTheVowelOfFather(_ word: String, _ general: String, _ british: String) {
        #expect(AccentVariants.bathVowel(word, general) == british)
    }

    /// A vowel after the consonant ("traffic", "classic"), other consonants ("cancel", "back"),
    /// and the common words that fit the pattern but keep the vowel of "trap".
    @Test(arguments: [("traffic", "T R AE F IH K"), ("classic", "K L AE S IH K"), ("cancel", "K AE N S AH L"), ("back", "B AE K"),
                      ("gas", "G AE S"), ("plastic", "P L AE S T IH K"), ("stop", "S T AA P")])
    func otherWordsKeepTheVowelOfTrap(_ word: String, _ phones: String) {
        #expect(AccentVariants.bathVowel(word, phones) == nil)
    }

    @Test(arguments: [
        ("T EH M P R AH CH ER", "T EH M P R AH CH AH R"),   // temperature in ...
        ("P AW ER", "P AW AH R"),                           // power up
        ("K AA R", "K AA R"),                               // car: the same as the dictionary's
    ])
    func anROrErAtTheEndIsSaidBeforeAVowel(_ general: String, _ linking: String) {
        #expect(AccentVariants.linkingR(general) == linking)
    }

    /// Only words that end in an r sound; a form the dictionary has is not added again.
    @Test func linkingFormsAreOnlyForWordsThatEndInR() {
        #expect(AccentVariants.linkingR("S T AA R T") == nil)
        #expect(AccentVariants.linkingR("V EH R IY") == nil)
        #expect(AccentVariants.linkingForms(pronunciations: ["K AA R"]).isEmpty)
        #expect(AccentVariants.linkingForms(pronunciations: ["T AY M ER"]) == ["T AY M AH R"])
        #expect(AccentVariants.beginsWithVowel("IH N") && !AccentVariants.beginsWithVowel("DH AH"))
    }

    /// Every form a word lacks, each once; the AH a lost r leaves of ER is never made open.
    @Test func formsCombineTheAccentsAndSkipWhatTheDictionaryHas() {
        #expect(AccentVariants.forms(of: "done", pronunciations: ["D AH N"]) == ["D AA N"])
        #expect(AccentVariants.forms(of: "start", pronunciations: ["S T AA R T"]) == ["S T AA T"])
        #expect(AccentVariants.forms(of: "burn", pronunciations: ["B ER N"]) == ["B AH N"])
        #expect(AccentVariants.forms(of: "done", pronunciations: ["D AH N", "D AA N"]).isEmpty)
        #expect(AccentVariants.forms(of: "stop", pronunciations: ["S T AA P"]).isEmpty)
        #expect(AccentVariants.forms(of: "resume", pronunciations: ["R IH Z UW M"]) == ["R IH Z Y UW M"])
        #expect(AccentVariants.forms(of: "after", pronunciations: ["AE F T ER"]) == ["AE F T AH", "AA F T ER", "AA F T AH"])
    }

    @Test func theVariantsWordNameComesBackToTheWord() {
        #expect(Decoder.baseWord("start" + AccentVariants.marker) == "start")
        #expect(Decoder.baseWord("start" + AccentVariants.marker + "(2)") == "start")
        #expect(Decoder.baseWord("read(2)") == "read")
        #expect(Decoder.baseWord("power" + AccentVariants.linkingMarker) == "power")
    }

    /// A word with several pronunciations gets its variants as alternates of the variant word,
    /// never of the word itself (which the grammar would take at full probability).
    @Test func variantsOfAWordWithAlternatesStayApart() throws {
        let decoder = try Decoder()
        let general = decoder.pronunciations(of: "for")
        let forms = general.compactMap(AccentVariants.nonRhotic).filter { !general.contains($0) }
        #expect(general.count >= 2 && forms.count >= 2, "\(general)")
        let name = "for" + AccentVariants.marker
        for form in forms { #expect(decoder.addWord(name, phones: form)) }
        #expect(decoder.pronunciations(of: "for") == general)
        #expect(decoder.pronunciations(of: name) == forms)
    }
}
