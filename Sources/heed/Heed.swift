import ArgumentParser

@main
struct HeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heed",
        abstract: "Offline voice commands: recordings and microphones in, intents out.",
        discussion: """
            Exit codes follow sysexits: 64 usage, 65 bad audio, 66 cannot open input, 77 not \
            authorized (see `heed auth`), \
            70 internal error, 78 missing model or bad grammar.
            """,
        subcommands: [Recognize.self, Listen.self, Devices.self, ContextCommand.self, Auth.self]
    )
}
