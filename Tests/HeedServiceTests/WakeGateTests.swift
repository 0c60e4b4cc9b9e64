import Heed
import HeedService
import Testing

@Suite struct WakeGateTests {
    func heard(_ intent: String?, at start: Double, understood: Bool = true) -> Utterance {
        Utterance(start: start, end: start + 1, transcript: intent ?? "mumble", intent: intent.map { Intent(name: $0) },
                  understood: understood && intent != nil, confidence: 0.9)
    }

    @Test func contextsAreHeardOnlyInTheWindowAfterTheWakePhrase() {
        var gate = WakeGate(phrase: "hey barista", window: 8, alwaysOn: ["stop"])
        #expect(gate.command.phrases == [["hey", "barista"]])
        #expect(gate.decide(heard("orderDrink", at: 0)) == .asleep)
        #expect(gate.decide(heard(WakeGate.intent, at: 10)) == .wake)
        #expect(gate.awakeUntil == 19)
        #expect(gate.decide(heard(nil, at: 12)) == .notUnderstood)  // noise does not close the window
        #expect(gate.decide(heard("orderDrink", at: 14)) == .pass)
        // One wake, one request.
        #expect(gate.decide(heard("orderDrink", at: 16)) == .asleep)
        // Always-on commands need no wake phrase.
        #expect(gate.decide(heard("stop", at: 30)) == .pass)
    }

    @Test func theWindowCloses() {
        var gate = WakeGate(phrase: "hey barista", window: 5, alwaysOn: [])
        _ = gate.decide(heard(WakeGate.intent, at: 0))
        #expect(gate.decide(heard("stop", at: 6.5)) == .asleep)
    }
}
