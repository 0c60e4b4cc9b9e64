import Foundation
import HeedTestSupport
import Testing

/// `heed auth` and the gate in front of every audio command, as a user runs them.
@Suite(.timeLimit(.minutes(40))) struct AuthCommandTests {
    /// A private state directory with no policy: nothing is decided.
    func fresh() throws -> [String: String] {
        ["HEED_STATE_DIR": try Fixtures.temporaryDirectory().appendingPathComponent("state").path, "HEED_POLICY": "/nonexistent"]
    }

    @Test func notDeterminedWithoutATerminalRefusesAndSaysHow() throws {
        let env = try fresh()
        let result = try CLI.run(["recognize", "Audio/demo/stop.wav"], environment: env)
        #expect(result.status == 77)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("has not been allowed to use speech-recognition yet; run `heed auth request speech-recognition`"))
        let status = try CLI.run(["auth", "status", "--json"], environment: env)
        #expect(status.stdout.contains(#""service":"speech-recognition","status":"notDetermined""#))
    }

    @Test func grantDenyResetRoundTrip() throws {
        let env = try fresh()
        #expect(try CLI.run(["auth", "grant", "speech-recognition"], environment: env).status == 0)
        let granted = try CLI.run(["recognize", "Audio/demo/stop.wav"], environment: env)
        #expect(granted.status == 0)
        #expect(granted.stdout.contains(#""intent":"stop""#))
        let status = try CLI.run(["auth", "status", "--json"], environment: env)
        #expect(status.stdout.contains(#""status":"authorized","decidedBy":"command","decidedAt":"20"#))

        #expect(try CLI.run(["auth", "deny", "speech-recognition"], environment: env).status == 0)
        let denied = try CLI.run(["recognize", "Audio/demo/stop.wav"], environment: env)
        #expect(denied.status == 77)
        #expect(denied.stdout.isEmpty)
        #expect(denied.stderr.contains("was denied speech-recognition"))

        let reset = try CLI.run(["auth", "reset", "speech-recognition"], environment: env)
        #expect(reset.stdout == "forgot 1 decision\n")
        #expect(try CLI.run(["recognize", "Audio/demo/stop.wav"], environment: env).status == 77)
        #expect(try CLI.run(["auth", "status"], environment: env).stdout.contains("speech-recognition notDetermined"))
    }

    @Test func promptOnATerminalIsShownOnceAndRemembered() throws {
        let env = try fresh()
        let heed = CLI.executable.path
        // `script` gives heed a terminal; the answer arrives on it.
        let first = try CLI.run(["-c", "script -qec '\(heed) auth request speech-recognition' /dev/null"], stdin: Data("y\n".utf8), environment: env, executable: "/bin/sh")
        #expect(first.stdout.contains("\"Heed\" would like to use speech recognition."))
        #expect(first.stdout.contains("Heed turns your recordings and speech into commands, on this device only."))
        #expect(first.stdout.contains("org.heed.cli  speech-recognition authorized"))
        let second = try CLI.run(["-c", "script -qec '\(heed) auth request speech-recognition' /dev/null"], stdin: Data(), environment: env, executable: "/bin/sh")
        #expect(second.status == 0)
        #expect(!second.stdout.contains("would like to use"))
        #expect(try CLI.run(["auth", "status", "--all"], environment: env).stdout.contains("authorized  (by prompt"))
    }

    @Test func restrictionCannotBeOverriddenByTheUser() throws {
        let directory = try Fixtures.temporaryDirectory()
        let policy = directory.appendingPathComponent("policy.yml")
        try "restrict:\n  - service: speech-recognition\n".write(to: policy, atomically: true, encoding: .utf8)
        let env = ["HEED_STATE_DIR": directory.appendingPathComponent("state").path, "HEED_POLICY": policy.path]
        let grant = try CLI.run(["auth", "grant", "speech-recognition"], environment: env)
        #expect(grant.status == 77)
        #expect(grant.stderr.contains("restricted for org.heed.cli by the administrator's policy"))
        let recognize = try CLI.run(["recognize", "Audio/demo/stop.wav"], environment: env)
        #expect(recognize.status == 77)
        #expect(recognize.stdout.isEmpty)
    }

    @Test func missingPurposeStringIsRefusedBeforeAnythingElse() throws {
        let directory = try Fixtures.temporaryDirectory()
        let manifest = directory.appendingPathComponent("app.yml")
        try "id: com.example.mute\nname: Mute\nusage:\n  microphone: Listens.\n".write(to: manifest, atomically: true, encoding: .utf8)
        // Even a missing input file is not looked at.
        let result = try CLI.run(["recognize", "--app", manifest.path, "no-such-file.wav"])
        #expect(result.status == 78)
        #expect(result.stderr == "heed: com.example.mute uses a service without saying why: add a non-empty `usage: {speech-recognition: ...}` to \(manifest.path)\n")
    }

    @Test func untrustedStoreFailsClosedAndIsKept() throws {
        let directory = try Fixtures.temporaryDirectory()
        let file = directory.appendingPathComponent("decisions.sqlite")
        try Data("this is not a database, but it is the user's file".utf8).write(to: file)
        chmod(file.path, 0o600)
        let result = try CLI.run(["recognize", "Audio/demo/stop.wav"], environment: ["HEED_STATE_DIR": directory.path])
        #expect(result.status == 77)
        #expect(result.stderr.contains("decision store \(file.path) is not trusted"))
        #expect(result.stdout.isEmpty)
        #expect(try String(contentsOf: file, encoding: .utf8) == "this is not a database, but it is the user's file")
    }

    @Test func denyingDuringABatchStopsIt() throws {
        let env = try fresh()
        #expect(try CLI.run(["auth", "grant", "speech-recognition"], environment: env).status == 0)
        let files = Fixtures.wavs(in: Fixtures.builtins).map(\.path)
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["recognize"] + files
        process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Wait for the first result, then say no from "another terminal".
        var seen = Data()
        while !seen.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // ended before printing anything; the checks below report it
            seen += chunk
        }
        #expect(try CLI.run(["auth", "deny", "speech-recognition"], environment: env).status == 0)
        seen += out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 77)
        #expect(stderr.contains("stopped at"))
        #expect(stderr.contains("was denied speech-recognition"))
        let decodedFiles = Set(String(decoding: seen, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: "\"")[safe: 3] })
        // How soon is the recheck interval's job (0.5 s, tested in AuthorizerTests); here it is
        // enough that the batch stopped instead of running to the end.
        #expect(decodedFiles.count < files.count, "the batch ran to the end")
    }

    @Test func concurrentWritersLoseNothing() throws {
        let env = try fresh()
        // 8 processes, each recording 15 decisions for its own apps, all at once.
        let writers = try CLI.runConcurrently((0..<8).map { writer in
            "for n in $(seq 1 15); do \"$0\" auth grant --app com.writer\(writer).app$n microphone >/dev/null || exit 1; done"
        }, environment: env)
        for writer in writers { #expect(writer.status == 0, "\(writer.stderr)") }
        let all = try CLI.run(["auth", "status", "--all", "--json"], environment: env)
        #expect(all.stdout.split(separator: "\n").count == 8 * 15)
    }

    @Test func killedWritersNeverDamageTheStore() throws {
        let env = try fresh()
        var acknowledged: [String] = []
        var generator = SystemRandomNumberGenerator()
        for round in 0..<60 {
            let app = "com.kill.app\(round)"
            let process = Process()
            process.executableURL = CLI.executable
            process.arguments = ["auth", "grant", "--app", app, "microphone", "speech-recognition"]
            process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 0...60_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .exit && process.terminationStatus == 0 { acknowledged.append(app) }
            // After every kill the store opens cleanly and holds every acknowledged decision.
            let status = try CLI.run(["auth", "status", "--all", "--json"], environment: env)
            #expect(status.status == 0, "round \(round): \(status.stderr)")
            for app in acknowledged { #expect(status.stdout.contains("\"app\":\"\(app)\",\"service\":\"microphone\",\"status\":\"authorized\"")) }
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
