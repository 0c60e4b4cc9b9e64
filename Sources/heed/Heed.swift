import ArgumentParser

@main
struct HeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heed",
        abstract: "Offline voice commands: recordings and microphones in, intents out.",
        discussion: """
            Exit codes follow sysexits: 64 usage, 65 bad audio or context, 66 cannot open input, \
            69 capture device unavailable, 70 internal error, 77 not authorized (see `heed auth`), \
            78 configuration (model, dictionary, grammar, context, app manifest or policy).
            """,
        subcommands: [Recognize.self, Listen.self, Serve.self, Devices.self, TestCommand.self, ContextCommand.self, Shortcuts.self, Enroll.self, Auth.self]
    )
}
