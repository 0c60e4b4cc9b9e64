import Foundation
import HeedTestSupport
import Testing

/// Inputs that once crashed, hung or exhausted memory (found by `make fuzz`, kept in
/// Tests/FuzzRegressions/TARGET/), replayed through the same targets without the fuzzer.
@Suite struct FuzzRegressionTests {
    static let root = Fixtures.root.appendingPathComponent("Tests/FuzzRegressions")
    static let targets = ["wav", "context", "suite", "manifest", "policy", "dict"]

    @Test(arguments: targets)
    func keptInputsRunCleanly(target: String) throws {
        let directory = Self.root.appendingPathComponent(target)
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
            .map { directory.appendingPathComponent($0).path }
        guard !files.isEmpty else { return }  // nothing kept for this target yet
        let replayer = CLI.executable.deletingLastPathComponent().appendingPathComponent("heed-fuzz").path
        // A hang is a failure too: give each file a few seconds.
        let result = try CLI.run([String(5 * files.count), replayer, target] + files, executable: "/usr/bin/timeout")
        #expect(result.status == 0, "\(target): \(result.stderr)")
    }

    /// "Billion laughs": aliases of aliases make a few hundred bytes stand for 387 million
    /// nodes. Every YAML reader refuses it at once with a clear error instead of hanging.
    @Test func aliasBombsAreRefusedWithAnError() throws {
        let bomb = Self.root.appendingPathComponent("suite/billion-laughs.yml")
        let suite = try Fixtures.temporaryDirectory()
        try FileManager.default.copyItem(at: bomb, to: suite.appendingPathComponent("suite.yml"))
        let test = try CLI.run(["test", suite.path])
        #expect(test.status == 65)
        #expect(test.stderr.contains("expands to more than 200000 nodes"))
        let check = try CLI.run(["context", "check", bomb.path])
        #expect(check.status == 65 && check.stderr.contains("expands to more than"))
        let app = try CLI.run(["recognize", "--app", bomb.path, "Audio/demo/stop.wav"])
        #expect(app.status == 78 && app.stderr.contains("expands to more than"))
        let policy = try CLI.run(["recognize", "Audio/demo/stop.wav"], environment: ["HEED_POLICY": bomb.path])
        #expect(policy.status == 78 && policy.stderr.contains("expands to more than"))
    }

    /// "844444444444444444:44" is an integer in YAML 1.1's base 60, too large for Int: Yams
    /// multiplies it out unchecked and trapped (the fuzzer found it in an app manifest). Every
    /// reader that builds values from YAML now names it, with its line, and refuses the file.
    @Test func aBase60NumberTooLargeIsAnError() throws {
        let number = Self.root.appendingPathComponent("manifest/base60-overflow.yml")
        let message = "'844444444444444444:44' is a base-60 number too large to hold (line 2); quote it if it is text"
        let suite = try Fixtures.temporaryDirectory()
        try "files:\n  a.wav: 844444444444444444:44\n".write(to: suite.appendingPathComponent("suite.yml"), atomically: true, encoding: .utf8)
        let test = try CLI.run(["test", suite.path])
        #expect(test.status == 65 && test.stderr.contains(message), "\(test.stderr)")
        let app = try CLI.run(["recognize", "--app", number.path, "Audio/demo/stop.wav"])
        #expect(app.status == 78 && app.stderr.contains("is a base-60 number too large to hold (line 1)"), "\(app.stderr)")
        let policy = try CLI.run(["recognize", "Audio/demo/stop.wav"], environment: ["HEED_POLICY": number.path])
        #expect(policy.status == 78 && policy.stderr.contains("is a base-60 number too large to hold (line 1)"), "\(policy.stderr)")
        #expect(policy.stdout.isEmpty)
        // With YAML 1.1's digit separators, which Yams drops before multiplying (found by the fuzzer too).
        let separated = Self.root.appendingPathComponent("manifest/base60-overflow-separators.yml")
        let separatedApp = try CLI.run(["recognize", "--app", separated.path, "Audio/demo/stop.wav"])
        #expect(separatedApp.status == 78 && separatedApp.stderr.contains("is a base-60 number too large to hold (line 1)"),
                "\(separatedApp.stderr)")
    }
}
