import ArgumentParser
import Foundation
import Heed

struct ContextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "context",
        abstract: "Work with Rhino-format context files.",
        subcommands: [Check.self]
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a context: syntax, slot and macro references, and every word against the dictionary.",
            discussion: "Prints how many intents, expressions, slots and words it has, and the size of the compiled grammar. Decodes nothing.")

        @Argument(help: "Context files.") var files: [String]

        /// "1 macro", "2 macros".
        private func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

        func run() throws {
            var failed = false
            for file in files {
                do {
                    let context = try Context(contentsOf: URL(fileURLWithPath: file))
                    let summary = try CommandRecognizer.summary(of: context)
                    let values = context.slots.values.reduce(0) { $0 + $1.count }
                    print("\(file): ok: \(count(context.intentNames.count, "intent")), \(count(context.expressions.count, "expression")), "
                          + "\(count(context.slots.count, "slot type")) (\(count(values, "value"))), \(count(context.macros.count, "macro")), "
                          + "\(count(context.vocabulary.count, "word")); grammar \(summary.states) states, \(summary.transitions) transitions")
                } catch let error as ContextError {
                    Terminal.error(error.description)
                    failed = true
                } catch let error as HeedError {
                    Terminal.error(error.message)
                    failed = true
                }
            }
            if failed { throw ExitCode(65) }
        }
    }
}
