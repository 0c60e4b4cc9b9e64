import Foundation
import HeedTestSupport
import Testing

/// `heed shortcuts` and donated phrases in `recognize` and `listen`, as a user runs them.
@Suite(.timeLimit(.minutes(40))) struct ShortcutsCommandTests {
    /// One state directory for a whole exchange of commands.
    func environment() throws -> [String: String] {
        ["HEED_STATE_DIR": try Fixtures.temporaryDirectory().appendingPathComponent("state").path]
    }

    let donateCoffee = ["shortcuts", "donate", "--id", "coffee", "--title", "Order my favorite coffee", "--phrase", "order my coffee",
                        "--intent", "orderDrink", "--slot", "size=large", "--slot", "drink=latte"]

    func lines(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    @Test func donateListSuggestAndDelete() throws {
        let env = try environment()
        let first = try CLI.run(donateCoffee + ["--date", "2026-11-20T08:05:00Z"], environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "donated coffee: \"order my coffee\" -> orderDrink drink=latte size=large (1 donation)\n")
        #expect(try CLI.run(donateCoffee + ["--date", "2026-11-21T08:25:00Z"], environment: env).stdout.hasSuffix("(2 donations)\n"))
        let lights = try CLI.run(["shortcuts", "donate", "--id", "lights", "--title", "Lights off", "--phrase", "lights off",
                                  "--intent", "lightsOff", "--date", "2026-11-21T22:00:00Z"], environment: env)
        #expect(lights.status == 0, "\(lights.stderr)")

        let listed = try lines(CLI.run(["shortcuts", "list", "--json"], environment: env).stdout)
        #expect(listed.map { $0["id"] as? String } == ["coffee", "lights"])
        #expect(listed[0]["slots"] as? [String: String] == ["size": "large", "drink": "latte"])
        #expect(listed[0]["donations"] as? [String] == ["2026-11-20T08:05:00Z", "2026-11-21T08:25:00Z"])

        let morning = try lines(CLI.run(["shortcuts", "suggest", "--at", "08:00", "--json"], environment: env.merging(["TZ": "UTC"]) { $1 }).stdout)
        #expect(morning.map { $0["id"] as? String } == ["coffee", "lights"])
        #expect(morning[0]["usually"] as? String == "08:15")
        let night = try lines(CLI.run(["shortcuts", "suggest", "--at", "22:10", "--limit", "1", "--json"], environment: env.merging(["TZ": "UTC"]) { $1 }).stdout)
        #expect(night.map { $0["id"] as? String } == ["lights"])

        let missing = try CLI.run(["shortcuts", "delete", "--id", "lights", "--id", "nope"], environment: env)
        #expect(missing.status == 66)
        #expect(missing.stderr == "heed: no shortcut with id 'nope'\n")
        #expect(try lines(CLI.run(["shortcuts", "list", "--json"], environment: env).stdout).map { $0["id"] as? String } == ["coffee"])
        #expect(try CLI.run(["shortcuts", "delete", "--all"], environment: env).stdout == "deleted 1 shortcut\n")
        #expect(try CLI.run(["shortcuts"], environment: env).stdout.hasPrefix("no shortcuts donated"))
    }

    @Test(arguments: [
        (["--phrase", "stop", "--intent", "halt"], "'stop' already means stop; choose another phrase"),
        (["--phrase", "hey siri", "--intent", "x"], "'hey siri' is reserved (wake phrases and emergency calls cannot be shortcuts)"),
        (["--phrase", "call 911", "--intent", "x"], "'call 911' is reserved (wake phrases and emergency calls cannot be shortcuts)"),
        (["--phrase", "zorblax now", "--intent", "x"], "'zorblax now' cannot be recognized: not in the pronunciation dictionary: zorblax"),
        (["--phrase", "one two three four five six seven", "--intent", "x"], "'one two three four five six seven' has 7 words; a phrase has at most 6"),
        (["--phrase", "order a tea", "--intent", "soup", "--context", "Models/contexts/barista.yml"], "'order a tea' already means orderDrink (drink=tea); choose another phrase"),
    ])
    func badPhrasesAreRefusedWithTheReason(arguments: [String], message: String) throws {
        let result = try CLI.run(["shortcuts", "donate", "--id", "x", "--title", "X"] + arguments)
        #expect(result.status == 65)
        #expect(result.stderr == "heed: \(message)\n")
    }

    @Test func aTakenPhraseAndBadOptionsAreRefused() throws {
        let env = try environment()
        #expect(try CLI.run(donateCoffee, environment: env).status == 0)
        let taken = try CLI.run(["shortcuts", "donate", "--id", "other", "--title", "T", "--phrase", "Order my coffee!", "--intent", "x"], environment: env)
        #expect(taken.status == 65)
        #expect(taken.stderr.contains("is already the phrase of shortcut 'coffee'"))
        #expect(try CLI.run(donateCoffee + ["--slot", "size"], environment: env).status == 64)
        #expect(try CLI.run(["shortcuts", "suggest", "--at", "25:00"], environment: env).status == 64)
        #expect(try CLI.run(["shortcuts", "delete"], environment: env).status == 64)
        // Nothing refused was stored.
        #expect(try lines(CLI.run(["shortcuts", "list", "--json"], environment: env).stdout).count == 1)
    }

    @Test func recognizeHearsADonatedPhraseUntilItIsDeleted() throws {
        let env = try environment()
        let file = "Audio/shortcuts/order-my-coffee.wav"
        #expect(try lines(CLI.run(["recognize", file], environment: env).stdout).allSatisfy { $0["understood"] as? Bool == false })
        #expect(try CLI.run(donateCoffee, environment: env).status == 0)
        let heard = try lines(CLI.run(["recognize", file], environment: env).stdout)
        #expect(heard.map { $0["intent"] as? String } == ["orderDrink"])
        #expect(heard.first?["slots"] as? [String: String] == ["size": "large", "drink": "latte"])
        #expect(try lines(CLI.run(["recognize", "--no-shortcuts", file], environment: env).stdout).allSatisfy { $0["understood"] as? Bool == false })
        #expect(try CLI.run(["shortcuts", "delete", "--id", "coffee"], environment: env).status == 0)
        #expect(try lines(CLI.run(["recognize", file], environment: env).stdout).allSatisfy { $0["understood"] as? Bool == false })
    }

    /// A running listener picks up a donation, then a deletion, without a restart. The recording
    /// says "order my coffee" after 7 s and again after 16 s.
    @Test func aRunningListenerPicksUpDonationsAndDeletions() throws {
        let env = try environment()
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["listen", "--input", "Audio/shortcuts/later-coffee-twice.wav", "--partials", "0"]
        process.currentDirectoryURL = Fixtures.root
        process.environment = ProcessInfo.processInfo.environment.merging(try TestAuthorization.cliEnvironment().merging(env) { $1 }) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var buffer = Data(), seen: [[String: Any]] = []
        /// Reads events until one matches, returning it (nil when the listener ended first).
        func next(_ wanted: ([String: Any]) -> Bool) throws -> [String: Any]? {
            while true {
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = buffer[buffer.startIndex..<newline]
                    buffer.removeSubrange(buffer.startIndex...newline)
                    let event = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
                    seen.append(event)
                    if wanted(event) { return event }
                }
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }
        func isEvent(_ name: String) -> ([String: Any]) -> Bool { { $0["event"] as? String == name } }

        #expect(try next(isEvent("listening")) != nil)
        #expect(try next(isEvent("shortcuts"))?["active"] as? Int == 0)
        #expect(try CLI.run(donateCoffee, environment: env).status == 0)
        #expect(try next(isEvent("shortcuts"))?["active"] as? Int == 1)
        let first = try next { ["intent", "not-understood"].contains($0["event"] as? String) }
        #expect(first?["intent"] as? String == "orderDrink", "\(seen)")
        #expect(try CLI.run(["shortcuts", "delete", "--id", "coffee"], environment: env).status == 0)
        #expect(try next(isEvent("shortcuts"))?["active"] as? Int == 0)
        let second = try next { ["intent", "not-understood"].contains($0["event"] as? String) }
        #expect(second?["event"] as? String == "not-understood", "\(seen)")
        _ = try next(isEvent("stopped"))
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}

/// Dialogues in `heed listen`: questions, the completed intent, the handler's response.
@Suite(.timeLimit(.minutes(40))) struct DialogueCommandTests {
    func events(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
            .filter { !["level", "speech-start", "partial"].contains($0["event"] as? String) }
    }

    @Test func aSpokenExchangeEndsInTheIntentAndTheResponse() throws {
        let log = try Fixtures.temporaryDirectory().appendingPathComponent("acted.txt")
        let result = try CLI.run(["listen", "--input", "Audio/dialogue/resolve-confirm-en-us_f2.wav", "--context", "Models/contexts/barista.yml",
                                  "--exec", "echo \"$HEED_INTENT $HEED_SLOT_SIZE $HEED_SLOT_DRINK\" >> '\(log.path)'"])
        #expect(result.status == 0, "\(result.stderr)")
        let all = try events(result.stdout)
        #expect(all.map { $0["event"] as? String } == ["listening", "shortcuts", "heard", "prompt", "heard", "prompt", "heard", "intent", "response", "stopped"])
        let prompts = all.filter { $0["event"] as? String == "prompt" }
        #expect(prompts.map { $0["question"] as? String } == ["What size?", "Ready to order a large tea?"])
        #expect(prompts.map { $0["slot"] as? String } == ["size", nil])
        let intent = try #require(all.first { $0["event"] as? String == "intent" })
        #expect(intent["slots"] as? [String: String] == ["drink": "tea", "size": "large"])
        #expect(all.first { $0["event"] as? String == "response" }?["text"] as? String == "Your large tea is on its way.")
        #expect(try String(contentsOf: log, encoding: .utf8) == "orderDrink large tea\n")
    }

    @Test func aFailedActionGivesTheFailureResponse() throws {
        let result = try CLI.run(["listen", "--input", "Audio/dialogue/confirm-en-us.wav", "--context", "Models/contexts/barista.yml", "--exec", "exit 3"])
        #expect(result.status == 0, "\(result.stderr)")
        let response = try #require(try events(result.stdout).first { $0["event"] as? String == "response" })
        #expect(response["result"] as? String == "failure")
        #expect(response["text"] as? String == "Sorry, the coffee could not be ordered.")
        #expect(result.stderr.contains("--exec command exited with status 3 for intent orderDrink"))
    }

    /// --speak says each question and response with espeak-ng. There is no sound card here, so a
    /// stand-in espeak-ng on PATH writes down what it was asked to say.
    @Test func speakSaysQuestionsAndResponses() throws {
        let bin = try Fixtures.temporaryDirectory()
        let said = bin.appendingPathComponent("said.txt")
        let fake = bin.appendingPathComponent("espeak-ng")
        try "#!/bin/sh\nshift\necho \"$*\" >> '\(said.path)'\n".write(to: fake, atomically: true, encoding: .utf8)
        chmod(fake.path, 0o755)
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = try CLI.run(["listen", "--input", "Audio/dialogue/resolve-confirm-en-us.wav", "--context", "Models/contexts/barista.yml", "--speak"],
                                 environment: ["PATH": path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOf: said, encoding: .utf8) == "What size?\nReady to order a large tea?\nYour large tea is on its way.\n")
    }

    @Test func declinedOrdersAreNotActedOn() throws {
        let log = try Fixtures.temporaryDirectory().appendingPathComponent("acted.txt")
        let result = try CLI.run(["listen", "--input", "Audio/dialogue/declined-en-us.wav", "--context", "Models/contexts/barista.yml",
                                  "--exec", "echo acted >> '\(log.path)'"])
        #expect(result.status == 0, "\(result.stderr)")
        let aborted = try #require(try events(result.stdout).first { $0["event"] as? String == "aborted" })
        #expect(aborted["reason"] as? String == "declined")
        #expect(!FileManager.default.fileExists(atPath: log.path))
    }
}

/// Donations share the store with permission decisions: they must survive the same abuse.
@Suite(.timeLimit(.minutes(40))) struct ShortcutStoreSafetyTests {
    /// SIGKILL at random moments while donating (and granting), 120 times: after every kill the
    /// store opens, and every donation that was acknowledged (exit 0) is there with all its times.
    @Test func killedDonorsNeverDamageTheStore() throws {
        let env = ["HEED_STATE_DIR": try Fixtures.temporaryDirectory().appendingPathComponent("state").path]
        var acknowledged: [String: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        let ids = ["red", "blue", "green", "white"]
        // Kills land anywhere from the start to a little past the end of a donation as long as
        // one takes on this machine now (the test suites run in parallel and load the CPU).
        let started = Date()
        #expect(try CLI.run(["shortcuts", "donate", "--id", "timing", "--title", "Timing", "--phrase", "time the lights",
                             "--intent", "lights"], environment: env).status == 0)
        let longestDelay = UInt32(min(2.0, max(0.7, 1.3 * Date().timeIntervalSince(started))) * 1_000_000)
        for round in 0..<120 {
            let id = ids[round % ids.count]
            let process = Process()
            process.executableURL = CLI.executable
            process.arguments = round % 5 == 4
                ? ["auth", "grant", "--app", "com.kill.app\(round)", "microphone"]
                : ["shortcuts", "donate", "--id", id, "--title", "Lights", "--phrase", "\(id) lights", "--intent", "lights", "--slot", "color=\(id)"]
            process.currentDirectoryURL = Fixtures.root
            process.environment = ProcessInfo.processInfo.environment.merging(try TestAuthorization.cliEnvironment().merging(env) { $1 }) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Donating loads the dictionary first (a few hundred ms), then writes: kill anywhere in that.
            usleep(UInt32.random(in: 0...longestDelay, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .exit && process.terminationStatus == 0 && round % 5 != 4 { acknowledged[id, default: 0] += 1 }
            let listed = try CLI.run(["shortcuts", "list", "--json"], environment: env)
            #expect(listed.status == 0, "round \(round): \(listed.stderr)")
            let stored = try listed.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
            for (id, count) in acknowledged {
                let donations = (stored.first { $0["id"] as? String == id }?["donations"] as? [String])?.count ?? 0
                // Killed donations may or may not have landed; acknowledged ones all did.
                #expect(donations >= count, "round \(round): \(id) has \(donations) donations, \(count) acknowledged")
            }
        }
        #expect(acknowledged.values.reduce(0, +) > 0, "no donation finished before its kill: the delays are too short to test anything")
    }

    /// 8 processes donating at once, 4 donations each: all 32 are stored.
    @Test func concurrentDonorsLoseNothing() throws {
        let env = ["HEED_STATE_DIR": try Fixtures.temporaryDirectory().appendingPathComponent("state").path]
        let colors = ["red", "blue", "green", "white", "black", "pink", "gold", "gray"]
        let writers = try CLI.runConcurrently(colors.map { color in
            "for n in one two three four; do \"$0\" shortcuts donate --id \(color)-$n --title T --phrase \"\(color) lights $n\" --intent x >/dev/null || exit 1; done"
        }, environment: env)
        for writer in writers { #expect(writer.status == 0, "\(writer.stderr)") }
        #expect(try CLI.run(["shortcuts", "list", "--json"], environment: env).stdout.split(separator: "\n").count == 32)
    }
}
