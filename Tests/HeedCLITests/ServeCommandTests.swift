import Foundation
import HeedTestSupport
import Testing

/// `heed serve` as systemd and a user run it: a paced recording for capture, its JSON lines,
/// log prefixes, signals, notifications and the configuration file.
@Suite(.timeLimit(.minutes(40))) struct ServeCommandTests {
    static let coffee = Fixtures.root.appendingPathComponent("Tests/Golden/real-coffee/0075d273-51bb-47cb-b323-4437bd0de029.wav")
    static let context = "Models/contexts/coffee_maker.yaml"

    static func events(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// `seconds` of quiet, then `file`, then a second of quiet, as one 16 kHz WAV.
    static func afterQuiet(_ seconds: Double, _ file: URL) throws -> URL {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("paced.wav")
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = [file.path, out.path, "pad", "\(seconds)", "1"]
        try sox.run()
        sox.waitUntilExit()
        #expect(sox.terminationStatus == 0)
        return out
    }

    @Test func aRecordingIsServedAndTheServiceStopsWhenItEnds() throws {
        let result = try CLI.run(["serve", "--no-builtins", "--context", Self.context, "--input", Self.coffee.path, "--site-id", "kitchen"])
        #expect(result.status == 0, "\(result.stderr)")
        let intents = Self.events(result.stdout).filter { $0["event"] as? String == "intent" }
        #expect(intents.count == 1)
        #expect(intents.first?["intent"] as? String == "orderDrink")
        #expect(intents.first?["site"] as? String == "kitchen")
        #expect((intents.first?["slots"] as? [String: String])?["size"] == "twelve ounce")
        // Every log line carries its sd-daemon level, for journald.
        let logs = result.stderr.split(separator: "\n")
        #expect(!logs.isEmpty && logs.allSatisfy { $0.hasPrefix("<6>") || $0.hasPrefix("<4>") || $0.hasPrefix("<3>") }, "\(result.stderr)")
        #expect(logs.first?.hasPrefix("<6>ready; capture: ") == true)
    }

    @Test func sighupReloadsTheConfigurationWithoutDroppingAudio() throws {
        let directory = try Fixtures.temporaryDirectory()
        let configuration = directory.appendingPathComponent("heed.yml")
        try "builtins: true\n".write(to: configuration, atomically: true, encoding: .utf8)
        let input = try Self.afterQuiet(4, Self.coffee)
        let serve = try BackgroundProcess(["serve", "--config", configuration.path, "--input", input.path])
        #expect(serve.waitForLine(containing: "ready", inStderr: true) != nil, "\(serve.stderr)")
        // The built-ins cannot order coffee; the context, read again on SIGHUP, can.
        try "builtins: false\ncontexts: [\(Fixtures.root.path)/\(Self.context)]\n".write(to: configuration, atomically: true, encoding: .utf8)
        serve.signal(SIGHUP)
        #expect(serve.waitForLine(containing: "reloaded: coffee_maker", inStderr: true, timeout: 20) != nil, "\(serve.stderr)")
        #expect(serve.wait() == 0, "\(serve.stderr)")
        let all = Self.events(serve.stdout)
        #expect(all.filter { $0["event"] as? String == "intent" }.map { $0["intent"] as? String } == ["orderDrink"], "\(serve.stdout)")
        // Times stay times in the whole recording across the reload (the request starts after 4 s of quiet).
        let start = all.first { $0["event"] as? String == "intent" }?["start"] as? Double ?? 0
        #expect(start > 4.3 && start < 5, "\(start)")
        let stopped = try #require(all.last { $0["event"] as? String == "stopped" })
        #expect(stopped["droppedSamples"] as? Int == 0)
        #expect(abs((stopped["seconds"] as? Double ?? 0) - 11.8) < 0.1, "\(stopped)")  // 4 + 6.8 + 1 s: all of it decoded
    }

    @Test func aConfigurationThatDoesNotLoadLeavesTheRunningOne() throws {
        let directory = try Fixtures.temporaryDirectory()
        let configuration = directory.appendingPathComponent("heed.yml")
        try "contexts: [\(Fixtures.root.path)/\(Self.context)]\nbuiltins: false\n".write(to: configuration, atomically: true, encoding: .utf8)
        let serve = try BackgroundProcess(["serve", "--config", configuration.path, "--input", try Self.afterQuiet(4, Self.coffee).path])
        #expect(serve.waitForLine(containing: "ready", inStderr: true) != nil)
        try "sensitivty: 2\n".write(to: configuration, atomically: true, encoding: .utf8)
        serve.signal(SIGHUP)
        #expect(serve.waitForLine(containing: "reload failed", inStderr: true, timeout: 20)?.hasPrefix("<3>") == true, "\(serve.stderr)")
        #expect(serve.stderr.contains("<3>heed: \(configuration.path): unknown setting 'sensitivty'"), "\(serve.stderr)")
        #expect(serve.wait() == 0)
        #expect(Self.events(serve.stdout).contains { $0["intent"] as? String == "orderDrink" })
    }

    @Test func sigtermStopsCleanly() throws {
        let serve = try BackgroundProcess(["serve", "--input", try Self.afterQuiet(30, Self.coffee).path])
        #expect(serve.waitForLine(containing: "ready", inStderr: true) != nil)
        serve.signal(SIGTERM)
        #expect(serve.wait(timeout: 10) == 0, "\(serve.stderr)")
        #expect(serve.stderr.contains("<6>stopped"))
        // Stopped before the recording's end, and said so.
        let stopped = try #require(ServeCommandTests.events(serve.stdout).last)
        #expect(stopped["event"] as? String == "stopped" && (stopped["seconds"] as? Double ?? 99) < 30, "\(serve.stdout)")
    }

    @Test func systemdHearsReadyAndTheWatchdogWhileAudioArrives() throws {
        let directory = try Fixtures.temporaryDirectory()
        let socket = directory.appendingPathComponent("notify").path
        // systemd's side of sd_notify: a datagram socket that prints what it is told.
        let notify = try BackgroundProcess(["python3", "-c", """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); print("bound", flush=True)
            while True:
                print(s.recv(4096).decode().replace("\\n", "|"), flush=True)
            """, socket], executable: "/usr/bin/env")
        #expect(notify.waitForLine(containing: "bound") != nil)
        let result = try CLI.run(["serve", "--input", try Self.afterQuiet(2, Self.coffee).path],
                                 environment: ["NOTIFY_SOCKET": socket, "WATCHDOG_USEC": "1000000"])
        #expect(result.status == 0, "\(result.stderr)")
        Thread.sleep(forTimeInterval: 0.3)
        notify.process.terminate()
        let told = notify.stdout.split(separator: "\n").map(String.init)
        #expect(told.contains { $0.hasPrefix("READY=1") }, "\(told)")
        // Half a second apart over a 9.8 s recording, while its audio arrives.
        #expect(told.filter { $0 == "WATCHDOG=1" }.count >= 10, "\(told)")
        #expect(told.last == "STOPPING=1")
    }

    @Test func donationsReachARunningServiceAndAKilledServiceLosesNothing() throws {
        let env = ["HEED_STATE_DIR": try Fixtures.temporaryDirectory().appendingPathComponent("state").path]
        let serve = try BackgroundProcess(["serve", "--wyoming", "tcp://127.0.0.1:0"], environment: env)
        #expect(serve.waitForLine(containing: "ready", inStderr: true) != nil, "\(serve.stderr)")
        #expect(try CLI.run(["shortcuts", "donate", "--id", "tea", "--title", "Tea", "--phrase", "brew my tea", "--intent", "brewTea"],
                            environment: env).status == 0)
        // The running service puts the donated phrase in its grammar within a second.
        #expect(serve.waitForLine(containing: "\"active\":1", timeout: 10) != nil, "\(serve.stdout)")
        serve.signal(SIGKILL)
        serve.wait()
        // Killed: the store is whole, and the next service starts with the donation in it.
        let listed = try CLI.run(["shortcuts", "list", "--json"], environment: env)
        #expect(listed.status == 0 && listed.stdout.contains("brew my tea"), "\(listed.stderr)")
        let again = try BackgroundProcess(["serve", "--wyoming", "tcp://127.0.0.1:0"], environment: env)
        #expect(again.waitForLine(containing: "\"active\":1", timeout: 30) != nil, "\(again.stdout) \(again.stderr)")
        #expect(again.stop() == 0)
    }

    @Test func aBadConfigurationEndsWithOneClearLine() throws {
        let directory = try Fixtures.temporaryDirectory()
        let configuration = directory.appendingPathComponent("heed.yml")
        try "wyoming: tcp://127.0.0.1:10300\nhub: yes please\n".write(to: configuration, atomically: true, encoding: .utf8)
        let result = try CLI.run(["serve", "--config", configuration.path])
        #expect(result.status == 78)
        #expect(result.stderr == "<3>heed: \(configuration.path): hub must be true or false\n", "\(result.stderr)")
        let missing = try CLI.run(["serve", "--config", directory.appendingPathComponent("none.yml").path])
        #expect(missing.status == 66, "\(missing.stderr)")
        let noBroker = try CLI.run(["serve", "--hub"])
        #expect(noBroker.status == 64 && noBroker.stderr.contains("--hub needs --mqtt"), "\(noBroker.stderr)")
    }

    @Test func theUnitFileVerifies() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            print("skipped: systemd-analyze is not installed")
            return
        }
        let unit = try String(contentsOf: Fixtures.root.appendingPathComponent("systemd/heed.service"), encoding: .utf8)
        for line in ["Type=notify", "Restart=on-failure", "User=heed", "SupplementaryGroups=audio", "StateDirectory=heed", "WatchdogSec="] {
            #expect(unit.contains(line), "\(line)")
        }
        // As installed, but with the binary this test built (verify checks it exists).
        let copy = try Fixtures.temporaryDirectory().appendingPathComponent("heed.service")
        try unit.replacingOccurrences(of: "/usr/local/bin/heed", with: CLI.executable.path).write(to: copy, atomically: true, encoding: .utf8)
        let verify = try BackgroundProcess(["verify", copy.path], executable: "/usr/bin/systemd-analyze")
        #expect(verify.wait() == 0, "\(verify.stderr)")
        #expect(!verify.stderr.contains("heed.service"), "\(verify.stderr)")
    }
}

/// The wake phrase, on real people: a request before it is ignored, the one after it heard, a
/// second one ignored again (one wake, one request); the built-ins are always on.
@Suite(.timeLimit(.minutes(40))) struct WakePhraseTests {
    @Test func contextsAreHeardOnlyAfterTheWakePhrase() throws {
        let golden = Fixtures.root.appendingPathComponent("Tests/Golden")
        let request = golden.appendingPathComponent("real-coffee/7d3c97b9-4f83-4def-a080-1b13f661acbf.wav").path
        let wake = golden.appendingPathComponent("real-wake/sheila-sc1-8d4cdc60_nohash_1.wav").path
        let stop = golden.appendingPathComponent("real-words/stop-1eddce1d_nohash_3.wav").path
        let input = try Fixtures.temporaryDirectory().appendingPathComponent("wake.wav")
        let sox = try BackgroundProcess([request, wake, request, request, stop, input.path, "pad", "0", "1"], executable: "/usr/bin/sox")
        #expect(sox.wait() == 0, "\(sox.stderr)")
        let result = try CLI.run(["serve", "--context", "Models/contexts/coffee_maker.yaml", "--wake", "sheila", "--input", input.path])
        #expect(result.status == 0, "\(result.stderr)")
        let events = ServeCommandTests.events(result.stdout).filter { ["wake", "intent", "ignored"].contains($0["event"] as? String) }
        #expect(events.map { "\($0["event"]!) \($0["intent"] ?? "")" } == ["ignored orderDrink", "wake ", "intent orderDrink", "ignored orderDrink", "intent stop"],
                "\(result.stdout)")
        let woke = try #require(events.first { $0["event"] as? String == "wake" })
        #expect((woke["until"] as? Double ?? 0) - (woke["time"] as? Double ?? 0) == 8)
        #expect(result.stderr.contains("wake: \"sheila\""))
    }
}
