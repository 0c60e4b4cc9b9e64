import Testing
@testable import HeedIntents

@Suite struct CommandSetTests {
    @Test func builtinsAreTheSixCommands() {
        #expect(CommandSet.builtins.intentNames == ["start", "stop", "pause", "resume", "done", "cancel"])
    }

    @Test func matchesWholePhrasesOnly() {
        let commands = CommandSet.builtins
        #expect(commands.match(["stop"]) == Intent(name: "stop"))
        #expect(commands.match(["STOP"]) == Intent(name: "stop"))
        #expect(commands.match(["stop", "stop"]) == nil)
        #expect(commands.match(["what", "time"]) == nil)
        #expect(commands.match([]) == nil)
    }

    @Test func multiWordPhrases() {
        var commands = CommandSet()
        commands.add(.init(intent: "orderCoffee", phrases: [["order", "my", "coffee"], ["coffee", "please"]]))
        #expect(commands.match(["order", "my", "coffee"]) == Intent(name: "orderCoffee"))
        #expect(commands.match(["coffee", "please"]) == Intent(name: "orderCoffee"))
        #expect(commands.match(["order", "coffee"]) == nil)
    }
}
