import Foundation
import HeedTestSupport
import Testing
import Yams
@testable import Heed

/// Contexts through the whole pipeline, on recordings.
@Suite(.serialized) struct ContextPipelineTests {
    static let coffee = Fixtures.root.appendingPathComponent("Models/contexts/coffee.yml")

    /// A recognizer for `Models/contexts/NAME.yml` alone (no built-ins), with `options`.
    static func recognizer(context name: String, options: RecognizerOptions = .init()) throws -> CommandRecognizer {
        let context = try Context(contentsOf: Fixtures.root.appendingPathComponent("Models/contexts/\(name).yml"))
        return try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [context]), options: options,
                                     authorization: TestAuthorization.speechRecognition())
    }

    /// Audio/coffee: 10 orders and requests in 3 voices (intent and every slot must be right) and
    /// 6 negatives. Measured: 27/30 accepted, 0/6 false accepts (2/6 before utterance verification).
    @Test func coffeeSuiteMeetsItsFloor() throws {
        let recognizer = try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [Context(contentsOf: Self.coffee)]),
                                               authorization: TestAuthorization.speechRecognition())
        let directory = Fixtures.audio.appendingPathComponent("coffee")
        let suite = try Yams.load(yaml: String(contentsOf: directory.appendingPathComponent("suite.yml"), encoding: .utf8)) as! [String: Any]
        let files = suite["files"] as! [String: [String: Any]]
        var accepted = 0, positives = 0, falseAccepts = 0, negatives = 0, failures: [String] = []
        for (name, expected) in files.sorted(by: { $0.key < $1.key }) {
            let understood = try recognizer.recognize(file: directory.appendingPathComponent(name)).filter(\.understood)
            if expected["understood"] as? Bool == false {
                negatives += 1
                if !understood.isEmpty { falseAccepts += 1; failures.append("\(name): \(understood.map(\.transcript))") }
            } else {
                positives += 1
                let slots = (expected["slots"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
                let want = Intent(name: expected["intent"] as! String, slots: slots)
                if understood.map(\.intent) == [want] { accepted += 1 } else { failures.append("\(name): \(understood.map(\.transcript))") }
            }
        }
        #expect(positives == 30 && negatives == 6)
        #expect(accepted >= 25, "\(accepted)/\(positives): \(failures)")
        #expect(falseAccepts <= 1, "\(falseAccepts)/\(negatives): \(failures)")
    }

    /// Utterance verification: "I need a taxi" and "large pizza with cheese" are forced onto
    /// coffee orders by the grammar; their acoustic fit falls far short of a free phone loop's,
    /// so they are rejected, while real orders (their fit close to the loop's) still pass.
    @Test func verificationRejectsSpeechForcedOntoAnOrder() throws {
        let context = try Context(contentsOf: Self.coffee)
        func recognizer(verifying: Bool) throws -> CommandRecognizer {
            var options = RecognizerOptions()
            if !verifying { options.verificationMarginPerFrame = nil }
            return try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [context]), options: options,
                                         authorization: TestAuthorization.speechRecognition())
        }
        let plain = try recognizer(verifying: false), verifying = try recognizer(verifying: true)
        let directory = Fixtures.audio.appendingPathComponent("coffee")
        for negative in ["none-03.wav", "none-05.wav"] {
            let url = directory.appendingPathComponent(negative)
            #expect(try plain.recognize(file: url).contains { $0.intent?.name == "orderDrink" }, "\(negative) is no longer forced onto an order")
            #expect(try verifying.recognize(file: url).allSatisfy { !$0.understood }, "\(negative)")
        }
        for order in ["orderDrink-01-en-us.wav", "orderDrink-02-en_m3.wav", "orderDrink-03-en-us_f2.wav", "howLong-10-en-us.wav"] {
            let url = directory.appendingPathComponent(order)
            let expected = try plain.recognize(file: url).compactMap(\.intent)
            let verified = try verifying.recognize(file: url).compactMap(\.intent)
            #expect(!expected.isEmpty && verified == expected, "\(order)")
        }
    }

    @Test func slotsComeOutExactlyAsWritten() throws {
        let recognizer = try CommandRecognizer(vocabulary: .commands(.builtins, contexts: [Context(contentsOf: Self.coffee)]),
                                               authorization: TestAuthorization.speechRecognition())
        let utterances = try recognizer.recognize(file: Fixtures.audio.appendingPathComponent("coffee/orderDrink-01-en-us.wav"))
        #expect(utterances.map(\.intent) == [Intent(name: "orderDrink", slots: ["size": "large", "drink": "latte", "milk": "oat milk"])])
        // The built-ins stay active beside the context.
        #expect(try recognizer.recognize(file: Fixtures.demo.appendingPathComponent("stop.wav")).first?.intent?.name == "stop")
    }

    /// A non-rhotic speaker says the r of "temperature" before "in" (espeak-ng's British voice:
    /// t'EmprI2tS3r- InD@). With only the r-less form beside the dictionary's, this command was
    /// lost at both speeds (BENCHMARKS.md, "Accents" and "A yod and a linking r"); the linking-r
    /// form, offered only before a vowel, hears it.
    @Test func aLinkingRIsHeardBeforeAVowel() throws {
        let home = Fixtures.root.appendingPathComponent("Models/contexts/home.yml")
        let recognizer = try CommandRecognizer(vocabulary: .commands(.builtins, contexts: [Context(contentsOf: home)]),
                                               authorization: TestAuthorization.speechRecognition())
        for speed in [140, 175] {
            let file = Fixtures.audio.appendingPathComponent("home/getTemperature-10-en_m3-\(speed).wav")
            #expect(try recognizer.recognize(file: file).map(\.intent) == [Intent(name: "getTemperature", slots: ["room": "bathroom"])])
        }
    }

    /// Over the quiet floor, "I love jazz" fits "put on jazz" well enough over the whole phrase
    /// for utterance verification, but "put" falls 50 log units per frame short of the phone loop
    /// over its own frames, where no right command's word fell more than 42 short (BENCHMARKS.md,
    /// "One word that does not fit"). "put on rock and roll" itself is still heard.
    @Test func oneWordThatDoesNotFitRejectsANearMiss() throws {
        let home = try Context(contentsOf: Fixtures.root.appendingPathComponent("Models/contexts/home.yml"))
        var options = RecognizerOptions()
        options.quietFloorDoubtBelowConfidence = nil  // every clean utterance over the floor
        let recognizer = try CommandRecognizer(vocabulary: .commands(.builtins, contexts: [home]), options: options,
                                               authorization: TestAuthorization.speechRecognition())
        options.wordVerificationMarginPerFrame = nil
        let phraseOnly = try CommandRecognizer(vocabulary: .commands(.builtins, contexts: [home]), options: options,
                                               authorization: TestAuthorization.speechRecognition())
        let nearMiss = Fixtures.audio.appendingPathComponent("home/none-07-en-us.wav")
        #expect(try phraseOnly.recognize(file: nearMiss).filter(\.understood).map(\.transcript) == ["put on jazz"])
        #expect(try recognizer.recognize(file: nearMiss).allSatisfy { !$0.understood })
        let command = Fixtures.audio.appendingPathComponent("home/playMusic-14-en-us-175.wav")
        #expect(try recognizer.recognize(file: command).map(\.intent) == [Intent(name: "playMusic", slots: ["genre": "rock and roll"])])
    }

    /// By default the quiet floor is a second opinion (`quietFloorDoubtBelowConfidence`): a clean
    /// utterance whose plain decode heard a command and rejected it, or took one with confidence
    /// under 0.6, is decoded again over the floor, and the floor's command is kept when it is
    /// surer. This British "cancel the timer" is rejected as heard and right over the floor;
    /// "start the air compressor" is "stop ..." at 0.38 as heard and "start" at 0.61 over it.
    /// Another voice's "start the air compressor" is taken at 0.84 as heard, so the floor, which
    /// hears "stop" in it, is never asked (BENCHMARKS.md, "The quiet floor as a second opinion").
    @Test func theQuietFloorIsASecondOpinion() throws {
        let workshop = try Context(contentsOf: Fixtures.root.appendingPathComponent("Models/contexts/workshop.yml"))
        let recognizer = { (floor: Double?, doubt: Double?) in
            var options = RecognizerOptions()
            options.quietFloorBelowPeakDB = floor
            options.quietFloorDoubtBelowConfidence = doubt
            return try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [workshop]), options: options,
                                         authorization: TestAuthorization.speechRecognition())
        }
        let (plain, secondOpinion, everyUtterance) = (try recognizer(nil, 0.6), try recognizer(40, 0.6), try recognizer(40, nil))
        #expect(RecognizerOptions().quietFloorBelowPeakDB == 40 && RecognizerOptions().quietFloorDoubtBelowConfidence == 0.6)
        let intents = { (recognizer: CommandRecognizer, name: String) in
            try recognizer.recognize(file: Fixtures.audio.appendingPathComponent("workshop/\(name).wav")).filter(\.understood).map { $0.intent?.name }
        }
        #expect(try intents(plain, "cancelTimer-15-en-130") == [])
        #expect(try intents(secondOpinion, "cancelTimer-15-en-130") == ["cancelTimer"])
        #expect(try intents(plain, "machineOn-03-en-175") == ["machineOff"])
        #expect(try intents(secondOpinion, "machineOn-03-en-175") == ["machineOn"])
        #expect(try intents(everyUtterance, "machineOn-03-en_m3-175") == ["machineOff"])
        #expect(try intents(secondOpinion, "machineOn-03-en_m3-175") == ["machineOn"])
    }

    /// Over the quiet floor the retry on an utterance's loud stretch (`foregroundMarginDB`) runs
    /// only when what it would cut away holds more than the floor. "turn left at the light" is
    /// rejected whole; its loud stretch alone, with only the floor cut away, was heard as "dim
    /// the office lights". "what is the voltage" in clatter at 12 dB (mixed as `heed test` mixes
    /// it) is rejected whole for the bursts around it and heard from its loud stretch alone
    /// (BENCHMARKS.md, "Cheaper over the floor").
    @Test func overTheFloorOnlyABurstIsCutAway() throws {
        var options = RecognizerOptions()
        options.quietFloorDoubtBelowConfidence = nil  // every clean utterance over the floor
        let recognizer = { (name: String) in try Self.recognizer(context: name, options: options) }
        let nearMiss = Fixtures.audio.appendingPathComponent("home/none-12-en-us_f2.wav")
        #expect(try recognizer("home").recognize(file: nearMiss).allSatisfy { !$0.understood })
        let mixed = try SuiteMix.mixed(Fixtures.audio.appendingPathComponent("workshop/readGauge-20-en-130.wav"),
                                   as: "workshop/readGauge-20-en-130.wav", with: "clatter", snr: 12)
        #expect(try recognizer("workshop").recognize(samples: mixed).filter(\.understood).map(\.transcript) == ["what is the voltage"])
    }

    /// A burst of clatter over a clean "open the curtains in the living room" hides it from every
    /// path; decoded against the command paths alone it is the forced choice. The same recording
    /// without the burst is heard without it (BENCHMARKS.md, "A forced choice over a burst").
    @Test func aCommandABurstHidIsAForcedChoice() throws {
        let file = Fixtures.audio.appendingPathComponent("home/openBlinds-12-en-us_f2-175.wav")
        let mixed = try SuiteMix.mixed(file, as: "home/openBlinds-12-en-us_f2-175.wav", with: "clatter", snr: 12)
        let recognizer = { (margin: Double?) in
            var options = RecognizerOptions()
            options.forcedChoiceMarginPerFrame = margin
            options.masksBursts = false  // which also hears it (aBurstOverACommandIsMasked)
            return try Self.recognizer(context: "home", options: options)
        }
        let forced = try recognizer(RecognizerOptions().forcedChoiceMarginPerFrame)
        #expect(forced.holdsBurst(mixed[...]))
        #expect(try recognizer(nil).recognize(samples: mixed).filter(\.understood).isEmpty)
        #expect(try forced.recognize(samples: mixed).filter(\.understood).map(\.transcript) == ["open the curtains in the living room"])
        #expect(try recognizer(nil).recognize(file: file).filter(\.understood).map(\.transcript) == ["open the curtains in the living room"])
    }

    /// "switch the dust extractor on" in clatter at 12 dB: a burst pulls every path off the
    /// command, and it is not understood; with the burst's frames masked the words around it are
    /// the command. Clean, it is the command either way.
    @Test func aBurstOverACommandIsMasked() throws {
        let name = "workshop/machineOn-02-en_f4-130.wav"
        let file = Fixtures.audio.appendingPathComponent(name)
        let mixed = try SuiteMix.mixed(file, as: name, with: "clatter", snr: 12)
        let recognizer = { (masks: Bool) in
            var options = RecognizerOptions()
            options.masksBursts = masks
            return try Self.recognizer(context: "workshop", options: options)
        }
        let masking = try recognizer(true)
        #expect(masking.burstFrames(mixed[...]).contains(true))
        #expect(try recognizer(false).recognize(samples: mixed).filter(\.understood).isEmpty)
        #expect(try masking.recognize(samples: mixed).filter(\.understood).map(\.transcript) == ["switch the dust extractor on"])
        #expect(try recognizer(false).recognize(file: file).filter(\.understood).map(\.transcript) == ["switch the dust extractor on"])
    }

    /// In pink noise at 9 dB, with the model adapted to the noise, "power to the people" fits
    /// "power up the lathe" well enough to pass verification, at a confidence of 0.18: doubtful.
    /// Decoded again with the model as trained it is no command, so it is turned away. "start
    /// recording" at 12 dB is doubtful too (0.21), but the model as trained hears the same
    /// command, so it is kept (BENCHMARKS.md, "A doubtful command checked by the model as trained").
    @Test func aDoubtfulCommandInNoiseIsCheckedByTheModelAsTrained() throws {
        let recognizer = { (doubt: Double?) in
            var options = RecognizerOptions()
            options.adaptedDoubtBelowConfidence = doubt
            return try Self.recognizer(context: "workshop", options: options)
        }
        let checked = try recognizer(RecognizerOptions().adaptedDoubtBelowConfidence)
        let unchecked = try recognizer(nil)
        let nearMiss = try SuiteMix.mixed(Fixtures.audio.appendingPathComponent("workshop/none-12-en.wav"),
                                          as: "workshop/none-12-en.wav", with: "pink", snr: 9)
        let taken = try unchecked.recognize(samples: nearMiss).filter(\.understood)
        #expect(taken.map(\.transcript) == ["power up the lathe"])
        #expect(taken.allSatisfy { $0.confidence < 0.25 })
        #expect(try checked.recognize(samples: nearMiss).filter(\.understood).isEmpty)
        let command = try SuiteMix.mixed(Fixtures.audio.appendingPathComponent("workshop/startRecording-21-en-130.wav"),
                                         as: "workshop/startRecording-21-en-130.wav", with: "pink", snr: 12)
        let kept = try checked.recognize(samples: command).filter(\.understood)
        #expect(kept.map(\.transcript) == ["start recording"])
        #expect(kept.allSatisfy { $0.confidence < 0.25 })
    }

    /// In pink noise at 6 dB the slow "how much time is left on the timer" is heard as two
    /// utterances, "how much" and the rest, neither a command; decoded together they are one.
    @Test func aNoisyPhraseCutInTwoIsRejoined() throws {
        let mixed = try SuiteMix.mixed(Fixtures.audio.appendingPathComponent("workshop/timeLeft-16-en-130.wav"),
                                   as: "workshop/timeLeft-16-en-130.wav", with: "pink", snr: 6)
        let recognizer = { (gap: Double?) in
            var options = RecognizerOptions()
            options.rejoinGap = gap
            return try Self.recognizer(context: "workshop", options: options)
        }
        let heard = { (gap: Double?) in try recognizer(gap).recognize(samples: mixed) }
        let apart = try heard(nil)
        #expect(apart.count == 2 && apart.allSatisfy { !$0.understood })
        let rejoined = try heard(0.5)
        #expect(rejoined.count == 2)
        #expect(rejoined.first?.understood == false)
        #expect(rejoined.last?.intent?.name == "timeLeft")
        #expect(rejoined.last?.transcript == "how much time is left on the timer")
        // The command spans both pieces: it starts where the first one's speech did.
        if apart.count == 2, let joined = rejoined.last {
            #expect(abs(joined.start - apart[0].start) < 0.3 && joined.end > apart[1].start)
        }
        // A pause longer than the gap keeps them apart. The endpointer ends an utterance 0.15 s
        // after its last loud frame, once 0.25 s of silence has passed, so no pause is under 0.1 s.
        #expect(try heard(0.05).allSatisfy { !$0.understood })
        // Live, 100 ms at a time and decoding ahead as `heed listen` does: the same.
        var live = try recognizer(0.5).makeStream(decodesAhead: true)
        var streamed: [Utterance] = []
        for start in stride(from: 0, to: mixed.count, by: 1_600) {
            streamed += try live.feed(Array(mixed[start..<min(start + 1_600, mixed.count)]))
        }
        streamed += try live.finish()
        #expect(streamed == rejoined)
    }

    /// Read English in pink noise at 9 dB is heard in pieces; two of them decoded together hold a
    /// "stop" inside one piece, which is not a phrase the pause cut in two.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func onlyACommandAcrossThePauseIsRejoined() throws {
        let name = "librivox/sense_and_sensibility_01_austen_64kb-0890.wav"
        let mixed = try SuiteMix.mixed(Fixtures.corpus.appendingPathComponent(name),
                                   as: "speech/../../../shared/corpus/pocketsphinx-test-data/\(name)", with: "pink", snr: 9)
        let heard = try CommandRecognizer(authorization: TestAuthorization.speechRecognition()).recognize(samples: mixed)
        #expect(heard.count > 1)
        #expect(heard.allSatisfy { !$0.understood }, "\(heard.filter(\.understood).map(\.transcript))")
    }

    @Test func missingWordsAreListedWithWhereTheyAreUsed() throws {
        let yaml = """
            context:
              expressions:
                summon:
                  - "bring me the frobnicator"
                  - "fetch the $thing:thing"
              slots:
                thing: ["zorblax widget", "cup"]
            """
        let context = try Context(yaml: yaml, source: "gadgets.yml")
        #expect(performing: {
            try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [context]), authorization: TestAuthorization.speechRecognition())
        }, throws: { error in
            let message = (error as? HeedError)?.message ?? ""
            return message.contains("gadgets.yml: 2 words are not in the pronunciation dictionary")
                && message.contains("frobnicator  (line 4: \"bring me the frobnicator\")")
                && message.contains("zorblax  (slot type thing)")
                && (error as? HeedError)?.exitCode == 78
        })
        // Supplying the pronunciations makes the same context usable.
        let fixed = try Context(yaml: yaml + "\n  pronunciations:\n    frobnicator: \"F R AA B N AH K EY T ER\"\n    zorblax: \"Z AO R B L AE K S\"\n", source: "gadgets.yml")
        _ = try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [fixed]), authorization: TestAuthorization.speechRecognition())
    }

    @Test func contextGrowsLinearlyNotWithTheNumberOfSentences() throws {
        // 40 expressions of 6 choices of 4 words each, over 3 slots of 20 values: about 4e9
        // sentences per expression, compiled without enumerating them.
        let words = ["red", "green", "blue", "white", "black", "brown", "gray", "pink", "orange", "yellow",
                     "kitchen", "garden", "hallway", "office", "garage", "bedroom", "bathroom", "attic", "porch", "cellar"]
        var yaml = "context:\n  expressions:\n"
        for n in 0..<40 {
            yaml += "    intent\(n):\n      - \"[turn, make, set, switch] (the) $a:x [on, off, up, down] $b:y (the) [lights, lamp, fan, heater] $c:z [now, please, quickly, today]\"\n"
        }
        yaml += "  slots:\n    a: [\(words.joined(separator: ", "))]\n    b: [\(words.joined(separator: ", "))]\n    c: [\(words.joined(separator: ", "))]\n"
        let context = try Context(yaml: yaml, source: "big.yml")
        let summary = try CommandRecognizer.summary(of: context)
        #expect(summary.transitions < 40 * 100)
    }
}
