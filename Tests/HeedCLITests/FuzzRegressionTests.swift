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

    /// "844444444444444444:44" was an integer in YAML 1.1's base 60, too large for Int: the YAML
    /// library Heed used multiplied it out unchecked and trapped (the fuzzer found it in an app
    /// manifest). Heed's reader takes no base-60 numbers: it is text, and every reader says what
    /// it expected instead, without a crash.
    @Test func aBase60LookingNumberIsText() throws {
        let suite = try Fixtures.temporaryDirectory()
        try "files:\n  a.wav: 844444444444444444:44\n".write(to: suite.appendingPathComponent("suite.yml"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: Fixtures.audio.appendingPathComponent("demo/stop.wav"), to: suite.appendingPathComponent("a.wav"))
        let test = try CLI.run(["test", suite.path])
        #expect(test.status == 1 && test.stdout.contains("a.wav: each expectation is a mapping"), "\(test.stdout) \(test.stderr)")
        for name in ["base60-overflow.yml", "base60-overflow-separators.yml"] {
            let number = Self.root.appendingPathComponent("manifest/\(name)")
            let app = try CLI.run(["recognize", "--app", number.path, "Audio/demo/stop.wav"])
            #expect(app.status == 78 && app.stderr.contains("expected a mapping with id, name and usage"), "\(app.stderr)")
            let policy = try CLI.run(["recognize", "Audio/demo/stop.wav"], environment: ["HEED_POLICY": number.path])
            #expect(policy.status == 78 && policy.stderr.contains("expected a mapping with restrict and authorize"), "\(policy.stderr)")
            #expect(policy.stdout.isEmpty)
        }
    }
}
