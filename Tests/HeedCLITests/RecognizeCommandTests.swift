import Foundation
import HeedTestSupport
import Testing

/// `heed recognize` as a user runs it: output format, errors and exit codes.
@Suite(.timeLimit(.minutes(40))) struct RecognizeCommandTests {
    func json(_ line: Substring) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
    }

    @Test func printsOneJSONLinePerUtteranceWithFieldsInOrder() throws {
        let result = try CLI.run(["recognize", "Audio/demo/stop.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.hasPrefix(#"{"file":"Audio/demo/stop.wav","start":"#))
        #expect(line.contains(#","transcript":"stop","intent":"stop","slots":{},"understood":true,"confidence":"#))
        let object = try json(line)
        #expect(Set(object.keys) == ["file", "start", "end", "transcript", "intent", "slots", "understood", "confidence"])
        #expect((object["start"] as! Double) < (object["end"] as! Double))
        // PocketSphinx's log never reaches our output streams.
        #expect(!result.stderr.contains("INFO:"))
    }

    /// --explain tells on stderr how each utterance was decided, and changes nothing on stdout.
    @Test func explainTellsOnStderrHowEachUtteranceWasDecided() throws {
        let plain = try CLI.run(["recognize", "--json", "Audio/demo/what-time-is-it.wav", "Audio/demo/stop.wav"])
        let explained = try CLI.run(["recognize", "--json", "--explain", "Audio/demo/what-time-is-it.wav", "Audio/demo/stop.wav"])
        #expect(explained.status == 0, "\(explained.stderr)")
        // The same lines, each with the detector's decision added.
        let withoutDetections = try explained.stdout.split(separator: "\n").map { line -> [String: Any] in
            var object = try json(line)
            #expect(object["detection"] is [String: Any], "\(line)")
            object["detection"] = nil
            return object
        }
        #expect(NSArray(array: withoutDetections).isEqual(to: try plain.stdout.split(separator: "\n").map(json)), "\(explained.stdout)")
        let lines = explained.stderr.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("  utterance at ") && $0.hasSuffix(": quiet") }.count == 2, "\(explained.stderr)")
        #expect(lines.contains { $0.hasPrefix("  commands search: \"[what]") }, "\(explained.stderr)")
        #expect(lines.contains("  commands search: \"stop\""), "\(explained.stderr)")
    }

    /// Each suppressor decodes the same commands; the two ways of naming speexdsp's conflict.
    @Test(arguments: ["webrtc", "speex", "off"]) func everyNoiseSuppressorDecodes(suppressor: String) throws {
        let result = try CLI.run(["recognize", "--noise-suppressor", suppressor, "Audio/demo/start-pause-stop.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.stdout.split(separator: "\n").map(json).map { $0["intent"] as? String } == ["start", "pause", "stop"])
    }

    /// Tuning options out of range: a usage error naming the problem.
    @Test(arguments: [
        (["--trailing-silence", "0.01"], "--trailing-silence must be between 0.05 and 5 seconds"),
        (["--pause-inside-request", "9"], "--pause-inside-request must be between 0.05 and 5 seconds"),
        (["--sensitivity", "1.5"], "--sensitivity must be between 0 and 1"),
        (["--garbage-penalty", "0"], "--garbage-penalty must be in (0, 1]"),
        (["--noise-suppressor", "loud"], "The value 'loud' is invalid for '--noise-suppressor'"),
    ])
    func badTuningOptionIsAUsageError(options: [String], message: String) throws {
        let result = try CLI.run(["recognize"] + options + ["Audio/demo/stop.wav"])
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// A profile that cannot be applied whole is refused before anything is decoded (exit 65).
    @Test(arguments: [
        (#"{"version": 1, "verificationMinWords": 3}"#, "unknown setting 'verificationMinWords'"),
        (#"{"version": 1, "trailingSilense": 0.3}"#, "unknown setting 'trailingSilense'"),
        (#"{"version": 9}"#, "profile version 9; this heed reads version 1"),
        (#"{"version": 1, "sensitivity": 2}"#, "sensitivity 2.0 is outside 0.0...1.0"),
        (#"{"version": 1, "languageMarginPerFrame": 6}"#, "unknown setting 'languageMarginPerFrame'"),
        (#"{"version": 1, "trailingSilence": "long"}"#, "not a tuning profile"),
    ])
    func aProfileThatCannotBeAppliedWholeIsRefused(profile: String, message: String) throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("profile.json")
        try profile.write(to: file, atomically: true, encoding: .utf8)
        let result = try CLI.run(["recognize", "--profile", file.path, "Audio/demo/stop.wav"])
        #expect(result.status == 65)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func severalFilesAndANegative() throws {
        let result = try CLI.run(["recognize", "Audio/demo/start-pause-stop.wav", "Audio/demo/what-time-is-it.wav", "Audio/demo/cancel.wav"])
        #expect(result.status == 0)
        let objects = try result.stdout.split(separator: "\n").map(json)
        #expect(objects.map { $0["intent"] as? String } == ["start", "pause", "stop", nil, "cancel"])
        #expect(objects[3]["understood"] as? Bool == false)
        #expect(objects[3]["file"] as? String == "Audio/demo/what-time-is-it.wav")
    }

    @Test func readsRawPCMFromStdin() throws {
        // The demo file's samples after its 44-byte header are raw 16 kHz mono S16LE.
        let wav = try Data(contentsOf: Fixtures.demo.appendingPathComponent("start-pause-stop.wav"))
        let result = try CLI.run(["recognize", "-"], stdin: wav.dropFirst(44))
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map(json)
        #expect(objects.map { $0["intent"] as? String } == ["start", "pause", "stop"])
        #expect(objects.allSatisfy { $0["file"] as? String == "-" })
    }

    @Test func textOutputWhenAsked() throws {
        let result = try CLI.run(["recognize", "--no-json", "Audio/demo/cancel.wav"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Audio/demo/cancel.wav"))
        #expect(result.stdout.contains("cancel  \"cancel\"  confidence"))
        #expect(!result.stdout.contains("{"))
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func brokenFilesGiveOneLineEachAndTheRestIsStillDecoded() throws {
        let corpus = "../shared/corpus/pocketsphinx-test-data"
        let result = try CLI.run(["recognize", "\(corpus)/awful.wav", "\(corpus)/bad.wav", "Audio/demo/stop.wav",
                                  "\(corpus)/evil.wav", "\(corpus)/null.wav"])
        #expect(result.status == 65)
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 4, "\(result.stderr)")
        for (line, name) in zip(errors, ["awful.wav", "bad.wav", "evil.wav", "null.wav"]) {
            #expect(line.hasPrefix("heed: \(corpus)/\(name): "), "\(line)")
        }
        #expect(try result.stdout.split(separator: "\n").map(json).map { $0["intent"] as? String } == ["stop"])
    }

    @Test func missingFileAndDirectoryExit66() throws {
        let missing = try CLI.run(["recognize", "Audio/demo/nope.wav", "Audio/demo/cancel.wav"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "heed: Audio/demo/nope.wav: no such file\n")
        #expect(missing.stdout.contains("\"intent\":\"cancel\""))
        let directory = try CLI.run(["recognize", "Audio/demo"])
        #expect(directory.status == 66)
        #expect(directory.stderr == "heed: Audio/demo: is a directory, not a WAV file\n")
    }

    @Test func nonPCMAndTruncatedFilesExit65() throws {
        let directory = try Fixtures.temporaryDirectory()
        let text = directory.appendingPathComponent("notes.wav")
        try Data("just some text renamed to .wav\n".utf8).write(to: text)
        let truncated = directory.appendingPathComponent("cut.wav")
        try Data(contentsOf: Fixtures.demo.appendingPathComponent("stop.wav")).prefix(5000).write(to: truncated)
        let result = try CLI.run(["recognize", text.path, truncated.path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(text.path): not a WAV file: no RIFF header"))
        #expect(result.stderr.contains("\(truncated.path): truncated: data chunk declares"))
    }

    /// Audio below the model's 16 kHz is still decoded, with a warning that says what it lacks;
    /// a 16 kHz file beside it gets none.
    @Test func narrowbandAudioIsDecodedWithAWarning() throws {
        var bytes = [UInt8](try Data(contentsOf: Fixtures.demo.appendingPathComponent("stop.wav")))
        // The same samples declared as 8 kHz (the fmt chunk's rate and byte rate): valid, slower speech.
        let fmt = try #require((12..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("fmt ".utf8) })
        for (offset, value) in [(fmt + 12, UInt32(8000)), (fmt + 16, UInt32(16000))] {
            withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
        }
        let narrow = try Fixtures.temporaryDirectory().appendingPathComponent("stop-8k.wav")
        try Data(bytes).write(to: narrow)
        let result = try CLI.run(["recognize", narrow.path, "Audio/demo/stop.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "heed: warning: \(narrow.path): 8000 Hz audio has nothing above 4000 Hz; "
                + "the model was trained on 16 kHz speech, so commands may be missed\n")
        #expect(result.stdout.contains(#"{"file":"Audio/demo/stop.wav","start":"#))
    }

    @Test func usageErrorsExit64() throws {
        #expect(try CLI.run(["recognize"]).status == 64)
        #expect(try CLI.run(["recognize", "--sensitivity", "2", "Audio/demo/stop.wav"]).status == 64)
        #expect(try CLI.run(["frobnicate"]).status == 64)
        let negative = try CLI.run(["recognize", "--trailing-silence=-3", "Audio/demo/stop.wav"])
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("--trailing-silence must be between 0.05 and 5 seconds"), "\(negative.stderr)")
    }

    @Test func badGrammarIsAConfigurationError() throws {
        let result = try CLI.run(["recognize", "--grammar", "/nonexistent.gram", "Audio/demo/stop.wav"])
        #expect(result.status == 78)
        #expect(result.stderr == "heed: cannot read grammar /nonexistent.gram\n")
    }

    @Test func checkPrintsWhatAContextHas() throws {
        let result = try CLI.run(["context", "check", "Models/contexts/coffee.yml", "Models/contexts/lights.yml"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Models/contexts/coffee.yml: ok: 4 intents, 8 expressions, 3 slot types (15 values), 2 macros"))
        #expect(result.stdout.contains("Models/contexts/lights.yml: ok: 2 intents, 4 expressions"))
    }

    @Test func checkShowsTheProblemWithACaret() throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("broken.yml")
        try "context:\n  expressions:\n    dim:\n      - \"[dim, lower] the $room:where lights\"\n  slots:\n    location: [kitchen]\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let result = try CLI.run(["context", "check", file.path])
        #expect(result.status == 65)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first == "heed: \(file.path):4:27: unknown slot type 'room'")
        // The caret sits under the slot reference.
        if lines.count == 3, let caret = lines[2].firstIndex(of: "^"), let slot = lines[1].range(of: "$room") {
            #expect(lines[2].distance(from: lines[2].startIndex, to: caret) == lines[1].distance(from: lines[1].startIndex, to: slot.lowerBound))
        }
    }

    /// The exported grammar is the language Heed decodes: plain PocketSphinx, given it, hears the order with its slot words, and does not hear a
    /// question as a command.
    @Test func exportedGrammarDecodesInPlainPocketSphinx() throws {
        let directory = try Fixtures.temporaryDirectory()
        let fsg = directory.appendingPathComponent("coffee.fsg"), dict = directory.appendingPathComponent("coffee.dict")
        let result = try CLI.run(["context", "export", "--context", "Models/contexts/coffee.yml", "--write-fsg", fsg.path, "--write-dict", dict.path])
        #expect(result.status == 0, "\(result.stderr)")
        let grammar = try String(contentsOf: fsg, encoding: .utf8)
        #expect(grammar.hasPrefix("FSG_BEGIN commands\n"))
        #expect(grammar.contains(" latte\n") && grammar.contains(" stop\n"), "the context's words and the built-in commands")
        func plainPocketSphinx(_ wav: String) throws -> String {
            let model = "/usr/share/pocketsphinx/model/en-us/en-us"
            let run = try CLI.run(["-infile", wav, "-hmm", model, "-dict", dict.path, "-fsg", fsg.path, "-logfn", "/dev/null"],
                                  executable: "/usr/bin/pocketsphinx_continuous")
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout.split(separator: "\n").joined(separator: " ")
        }
        #expect(try plainPocketSphinx("Audio/coffee/orderDrink-01-en-us.wav") == "make me a large latte with oat milk")
        // Not a command: garbage words, or (as this PocketSphinx hears it) nothing at all.
        let question = try plainPocketSphinx("Audio/demo/what-time-is-it.wav")
        #expect(!["start", "stop", "pause", "resume", "done", "cancel"].contains(question) && !question.contains("latte"), "\(question)")
    }

    @Test func exportRefusesAJSGFGrammar() throws {
        let result = try CLI.run(["context", "export", "--grammar", "Models/contexts/none.gram", "--write-fsg", "/tmp/x.fsg", "--write-dict", "/tmp/x.dict"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--grammar is a JSGF file already"), "\(result.stderr)")
    }

    @Test func recognizePrintsSlotsAsWrittenInTheContext() throws {
        let result = try CLI.run(["recognize", "--context", "Models/contexts/coffee.yml", "Audio/coffee/orderDrink-01-en-us.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""transcript":"make me a large latte with oat milk","intent":"orderDrink","slots":{"drink":"latte","milk":"oat milk","size":"large"},"understood":true"#))
    }

    @Test func aContextThatDoesNotParseStopsBeforeDecoding() throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("broken.yml")
        try "context:\n  expressions:\n    a: [\"(open\"]\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try CLI.run(["recognize", "--context", file.path, "Audio/demo/stop.wav"])
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("heed: \(file.path):3:"))
        #expect(result.stdout.isEmpty)
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func pronunciationFiles() throws {
        let corpus = "../shared/corpus/pocketsphinx-test-data"
        // A good CMUdict file adds (or adds alternates for) its words.
        #expect(try CLI.run(["recognize", "--dict", "\(corpus)/turtle.dic", "Audio/demo/stop.wav"]).status == 0)
        let bad = try CLI.run(["recognize", "--dict", "\(corpus)/defective.dic", "Audio/demo/stop.wav"])
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("defective.dic:1: 'go' uses a phone the acoustic model does not have: 'g'"))
    }
}
