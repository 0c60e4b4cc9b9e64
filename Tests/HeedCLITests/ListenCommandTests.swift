import Foundation
import HeedTestSupport
import Testing

/// `heed listen` through the real ALSA code, with the ALSA `file` plugin standing in for a
/// sound card: its `infile` feeds the capture device from a raw file.
@Suite(.timeLimit(.minutes(40))) struct ListenCommandTests {
    struct Rig {
        let home: URL
        let captured: URL
    }

    /// A temporary HOME whose .asoundrc defines capture device "heedtest", fed by `input`'s samples.
    func rig(input: URL) throws -> Rig {
        let home = try Fixtures.temporaryDirectory()
        let raw = home.appendingPathComponent("input.raw")
        let wav = try Data(contentsOf: input)
        try wav.dropFirst(44).write(to: raw)  // the demo WAVs are 16 kHz mono with a 44-byte header
        let captured = home.appendingPathComponent("captured.raw")
        try """
            pcm.heedtest {
                type file
                slave.pcm "null"
                file "\(captured.path)"
                infile "\(raw.path)"
                format "raw"
            }
            """.write(to: home.appendingPathComponent(".asoundrc"), atomically: true, encoding: .utf8)
        return Rig(home: home, captured: captured)
    }

    func events(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    @Test func threeCommandsThroughTheALSACaptureDevice() throws {
        let rig = try rig(input: Fixtures.demo.appendingPathComponent("start-pause-stop.wav"))
        let result = try CLI.run(["listen", "--device", "heedtest", "--duration", "5.7", "--buffer", "10"], environment: ["HOME": rig.home.path])
        #expect(result.status == 0, "\(result.stderr)")
        let all = try events(result.stdout)
        #expect(all.first?["event"] as? String == "listening")
        #expect((all.first?["format"] as? String)?.hasPrefix("S16_LE 16000 Hz 1 ch") == true)
        #expect(all.filter { $0["event"] as? String == "intent" }.map { $0["intent"] as? String } == ["start", "pause", "stop"])
        #expect(all.filter { $0["event"] as? String == "speech-start" }.count == 3)
        let stopped = try #require(all.last)
        #expect(stopped["event"] as? String == "stopped")
        #expect(stopped["droppedSamples"] as? Int == 0)
        // The device really was read: the file plugin copies what it captured.
        #expect(FileManager.default.fileExists(atPath: rig.captured.path))
    }

    @Test func partialsShowTheWordsSoFar() throws {
        // A phrase heard surely as it is said. A doubtful one can change at its end, when the quiet
        // floor's second opinion is taken, which partials do not wait for ("one extra large hot
        // chocolate with oat milk thanks" became "... whole milk ...").
        let rig = try rig(input: Fixtures.audio.appendingPathComponent("coffee/orderDrink-03-en-us.wav"))
        let result = try CLI.run(["listen", "--device", "heedtest", "--duration", "4.1", "--buffer", "10",
                                  "--context", "Models/contexts/coffee.yml", "--no-builtins"], environment: ["HOME": rig.home.path])
        #expect(result.status == 0, "\(result.stderr)")
        let all = try events(result.stdout)
        let partials = all.filter { $0["event"] as? String == "partial" }.compactMap { $0["transcript"] as? String }
        let final = all.first { $0["event"] as? String == "intent" }?["transcript"] as? String ?? ""
        #expect(!partials.isEmpty)
        // Each partial grows toward what was finally heard.
        #expect(partials.allSatisfy { final.hasPrefix($0) }, "\(partials) vs \(final)")
        #expect(zip(partials, partials.dropFirst()).allSatisfy { $0.count < $1.count })
    }

    @Test func execRunsACommandPerIntentInOrder() throws {
        let rig = try rig(input: Fixtures.demo.appendingPathComponent("start-pause-stop.wav"))
        let log = rig.home.appendingPathComponent("acted.txt")
        let result = try CLI.run(["listen", "--device", "heedtest", "--duration", "5.7", "--buffer", "10",
                                  "--exec", "printf '%s|%s\\n' \"$HEED_INTENT\" \"$(cat)\" >> '\(log.path)'"],
                                 environment: ["HOME": rig.home.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.map { $0.split(separator: "|")[0] } == ["start", "pause", "stop"])
        // The event's JSON arrives on stdin.
        #expect(lines.first?.contains(#"|{"event":"intent","#) == true)
    }

    @Test func withoutMicrophonePermissionTheDeviceIsNeverOpened() throws {
        let rig = try rig(input: Fixtures.demo.appendingPathComponent("stop.wav"))
        let state = try Fixtures.temporaryDirectory().appendingPathComponent("state")
        let policy = state.deletingLastPathComponent().appendingPathComponent("policy.yml")
        // Speech recognition is authorized; the microphone is not (denied, then restricted, then undecided).
        try "authorize:\n  - app: org.heed.cli\n    services: [speech-recognition]\n".write(to: policy, atomically: true, encoding: .utf8)
        let env = ["HOME": rig.home.path, "HEED_STATE_DIR": state.path, "HEED_POLICY": policy.path]
        let undecided = try CLI.run(["listen", "--device", "heedtest", "--duration", "1"], environment: env)
        #expect(undecided.status == 77)
        #expect(undecided.stderr.contains("has not been allowed to use microphone yet"))
        #expect(try CLI.run(["auth", "deny", "microphone"], environment: env).status == 0)
        let denied = try CLI.run(["listen", "--device", "heedtest", "--duration", "1"], environment: env)
        #expect(denied.status == 77)
        #expect(denied.stderr.contains("was denied microphone"))
        #expect(denied.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: rig.captured.path), "the capture device was opened")
    }

    @Test func pacedInputGivesTheSameIntentsInRealTime() throws {
        let started = Date()
        let result = try CLI.run(["listen", "--input", "Audio/demo/start-pause-stop.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        let all = try events(result.stdout)
        #expect(all.filter { $0["event"] as? String == "intent" }.map { $0["intent"] as? String } == ["start", "pause", "stop"])
        // Paced: 5.7 s of audio takes at least that long.
        #expect(Date().timeIntervalSince(started) >= 5.5)
    }

    /// With --reconnect a missing device is waited for: here its ALSA definition appears only
    /// after heed has started, as a USB microphone's would when it is plugged in.
    @Test func reconnectWaitsForTheDeviceToAppear() throws {
        let rig = try rig(input: Fixtures.demo.appendingPathComponent("start-pause-stop.wav"))
        let config = rig.home.appendingPathComponent(".asoundrc"), later = rig.home.appendingPathComponent("asoundrc.later")
        try FileManager.default.moveItem(at: config, to: later)
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["listen", "--device", "heedtest", "--reconnect", "0.2", "--duration", "5.7", "--buffer", "10", "--partials", "0"]
        process.currentDirectoryURL = Fixtures.root
        process.environment = ProcessInfo.processInfo.environment.merging(try TestAuthorization.cliEnvironment().merging(["HOME": rig.home.path]) { $1 }) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("device-lost") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        Thread.sleep(forTimeInterval: 0.5)  // a few more attempts fail and are not reported again
        try FileManager.default.moveItem(at: later, to: config)
        seen += out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let all = try events(String(decoding: seen, as: UTF8.self))
        #expect(all.first?["event"] as? String == "device-lost")
        #expect((all.first?["message"] as? String)?.contains("heedtest") == true)
        #expect(all.filter { $0["event"] as? String == "device-lost" }.count == 1)
        #expect(all.dropFirst().first?["event"] as? String == "listening")
        #expect(all.filter { $0["event"] as? String == "intent" }.map { $0["intent"] as? String } == ["start", "pause", "stop"])
    }

    @Test func missingDeviceIsUnavailable() throws {
        let result = try CLI.run(["listen", "--device", "hw:99,0", "--duration", "1"], environment: ["HOME": try Fixtures.temporaryDirectory().path])
        #expect(result.status == 69)
        #expect(result.stderr.contains("capture device 'hw:99,0': snd_pcm_open failed"))
    }

    @Test func sigintStopsCleanlyWithCounts() throws {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["listen", "--input", "Audio/demo/start-pause-stop.wav"]
        process.currentDirectoryURL = Fixtures.root
        process.environment = ProcessInfo.processInfo.environment.merging(try TestAuthorization.cliEnvironment()) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1.5)
        kill(process.processIdentifier, SIGINT)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let last = try events(stdout).last
        #expect(last?["event"] as? String == "stopped")
        #expect(((last?["seconds"] as? Double) ?? 99) < 4)
    }
}
