import ArgumentParser
import Foundation
import Heed

struct ContextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "context",
        abstract: "Work with Rhino-format context files.",
        subcommands: [Check.self, Export.self]
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

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the grammar Heed decodes clean speech with as a PocketSphinx FSG file and dictionary.",
            discussion: """
                The built-in commands and any --context as their minimal word graph, with the two \
                garbage loops that turn other speech into "not understood", exactly as Heed hands \
                them to PocketSphinx (donated shortcuts are left out). Plain PocketSphinx can then \
                decode the same language, to compare the two (`make bench` does) or to look into \
                a decode:

                  heed context export --context Models/contexts/coffee.yml --write-fsg coffee.fsg --write-dict coffee.dict
                  pocketsphinx_continuous -infile in.wav -hmm /usr/share/pocketsphinx/model/en-us/en-us \\
                    -fsg coffee.fsg -dict coffee.dict

                The decoder is set up as for `heed recognize`, so the permission gate applies.
                """)

        @Option(name: .customLong("write-fsg"), help: ArgumentHelp("Where to write the grammar.", valueName: "FILE.fsg")) var writeFSG: String
        @Option(name: .customLong("write-dict"), help: ArgumentHelp("Where to write the dictionary of its words.", valueName: "FILE.dict"))
        var writeDict: String
        @Flag(help: "Write only the language: the minimal word graph of the commands and contexts, without the garbage paths (what plain PocketSphinx is given in `make accuracy` and `make bench`).")
        var languageOnly = false
        @OptionGroup var vocabularyOptions: VocabularyOptions
        @OptionGroup var tuning: TuningOptions
        @OptionGroup var appOptions: AppOptions

        func validate() throws {
            if vocabularyOptions.grammar != nil { throw ValidationError("--grammar is a JSGF file already; export takes the built-in commands and contexts") }
        }

        func run() throws {
            let recognizer = try vocabularyOptions.recognizer(tuning: tuning, app: appOptions)
            guard let exported = recognizer.exportCommandSearch(languageOnly: languageOnly) else { throw ExitCode(64) }
            for (path, text) in [(writeFSG, exported.fsg), (writeDict, exported.dictionary)] {
                do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
                    Terminal.error("cannot write \(path): \(error.localizedDescription)")
                    throw ExitCode(73)
                }
            }
        }
    }
}
