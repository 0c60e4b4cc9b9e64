import ArgumentParser
import Foundation
import Heed

struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run recorded-WAV regression suites and report acceptance and false acceptance.",
        discussion: """
            A suite is a directory with WAV files and a suite.yml naming the contexts to load \
            and, per file, the intent and slots each utterance must give, or understood: false. \
            Every file goes through the same pipeline as `heed recognize` (the permission gate \
            included). Exit 0 when every expectation holds, or when acceptance is at least \
            --min-accept; 1 otherwise.

            Example: heed test Audio/builtins Audio/coffee --min-accept 0.85
            """
    )

    @Argument(help: "Suite directories.") var suites: [String]

    @Option(help: ArgumentHelp("Pass when this share of positive expectations is met, even if some fail.", valueName: "0..1"))
    var minAccept: Double?

    @OptionGroup var appOptions: AppOptions

    func validate() throws {
        if let minAccept, !(0...1).contains(minAccept) { throw ValidationError("--min-accept must be between 0 and 1") }
    }

    func run() throws {
        let authorization: Authorization
        do {
            authorization = try appOptions.authorizer().authorize(.speechRecognition, for: appOptions.manifest(), prompter: TerminalPrompter.ifInteractive)
        } catch {
            throw error.exit()
        }
        var accepted = 0, positives = 0, falseAccepts = 0, negatives = 0, broken = 0
        for path in suites {
            var suite: TestSuite
            let contexts: [Context]
            let recognizer: CommandRecognizer
            do throws(HeedError) {
                suite = try TestSuite(directory: URL(fileURLWithPath: path))
                contexts = try suite.contexts.map { (url) throws(HeedError) -> Context in
                    do throws(ContextError) { return try Context(contentsOf: url) } catch { throw HeedError(.configuration, error.description) }
                }
                recognizer = try CommandRecognizer(vocabulary: .commands(suite.builtins ? .builtins : CommandSet(), contexts: contexts),
                                                   authorization: authorization)
            } catch {
                Terminal.error(error.message)
                throw ExitCode(error.exitCode)
            }
            var known: [String: Set<String>] = suite.builtins ? Dictionary(uniqueKeysWithValues: CommandSet.builtins.intentNames.map { ($0, []) }) : [:]
            for context in contexts { known.merge(context.slotNames) { $0.union($1) } }
            suite.checkAgainst(intents: known)
            print("== \(path): \(suite.entries.count) files")
            for entry in suite.entries {
                if let problem = entry.problem {
                    print("  ERROR \(entry.file): \(problem)")
                    broken += 1
                    continue
                }
                let got: [Intent]
                do {
                    got = try recognizer.recognize(file: suite.directory.appendingPathComponent(entry.file)).filter(\.understood).compactMap(\.intent)
                } catch where error.kind == .permission {
                    Terminal.error("stopped at \(entry.file): \(error.message)")
                    throw ExitCode(error.exitCode)
                } catch {
                    print("  ERROR \(entry.file): \(error.message)")
                    broken += 1
                    continue
                }
                if entry.expected.isEmpty {
                    negatives += 1
                    if !got.isEmpty {
                        falseAccepts += 1
                        print("  FAIL  \(entry.file): expected nothing understood, got \(Self.describe(got))")
                    }
                } else {
                    positives += 1
                    if got == entry.expected.compactMap(\.intent) {
                        accepted += 1
                    } else {
                        print("  FAIL  \(entry.file): expected \(Self.describe(entry.expected.compactMap(\.intent))), got \(got.isEmpty ? "nothing understood" : Self.describe(got))")
                    }
                }
            }
        }
        let rate = positives > 0 ? Double(accepted) / Double(positives) : 1
        let falseRate = negatives > 0 ? Double(falseAccepts) / Double(negatives) : 0
        print("accepted \(accepted)/\(positives) (\(String(format: "%.1f", 100 * rate)) %), "
              + "false acceptance \(falseAccepts)/\(negatives) (\(String(format: "%.1f", 100 * falseRate)) %), \(broken) entries with errors")
        let allHeld = accepted == positives && falseAccepts == 0 && broken == 0
        if !allHeld && !(minAccept.map { rate >= $0 } ?? false) { throw ExitCode(1) }
    }

    static func describe(_ intents: [Intent]) -> String {
        intents.map { intent in
            intent.name + (intent.slots.isEmpty ? "" : "(" + intent.slots.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")")
        }.joined(separator: ", ")
    }
}
