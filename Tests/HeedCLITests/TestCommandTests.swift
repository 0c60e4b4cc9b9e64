import Foundation
import HeedTestSupport
import Testing

/// `heed test` on the project's suites and on a suite with broken entries.
@Suite(.timeLimit(.minutes(5))) struct TestCommandTests {
    @Test func coffeeSuiteReportsRatesAndFailures() throws {
        let strict = try CLI.run(["test", "Audio/coffee"])
        #expect(strict.status == 1)  // 26/30 and 2 false accepts: not every expectation holds
        #expect(strict.stdout.contains("== Audio/coffee: 36 files"))
        #expect(strict.stdout.contains("accepted 26/30 (86.7 %), false acceptance 2/6 (33.3 %), 0 entries with errors"))
        #expect(strict.stdout.contains("FAIL  orderDrink-05-en-us.wav: expected orderDrink(drink=hot chocolate, milk=whole milk, size=extra large), got orderDrink("))
        let floor = try CLI.run(["test", "Audio/coffee", "--min-accept", "0.85"])
        #expect(floor.status == 0)
    }

    @Test func brokenEntriesAreReportedAndTheRestRuns() throws {
        let suite = try Fixtures.temporaryDirectory()
        for name in ["stop.wav", "start-pause-stop.wav"] {
            try FileManager.default.copyItem(at: Fixtures.demo.appendingPathComponent(name), to: suite.appendingPathComponent(name))
        }
        try """
            files:
              stop.wav: {intent: stop}
              start-pause-stop.wav: [{intent: start}, {intent: pause}, {intent: stop}]
              gone.wav: {intent: stop}
              odd.wav: {intent: frobnicate}
            """.write(to: suite.appendingPathComponent("suite.yml"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: Fixtures.demo.appendingPathComponent("done.wav"), to: suite.appendingPathComponent("odd.wav"))
        let result = try CLI.run(["test", suite.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("ERROR gone.wav: no such file"))
        #expect(result.stdout.contains("ERROR odd.wav: unknown intent 'frobnicate'"))
        #expect(result.stdout.contains("accepted 2/2 (100.0 %), false acceptance 0/0 (0.0 %), 2 entries with errors"))
    }

    @Test func aSuiteWithoutManifestCannotBeOpened() throws {
        let result = try CLI.run(["test", try Fixtures.temporaryDirectory().path])
        #expect(result.status == 66)
        #expect(result.stderr.contains("suite.yml: cannot read the suite manifest"))
    }
}
