import ArgumentParser
import Foundation
import Heed

/// What the audio commands listen for: the built-in commands, contexts, or a plain JSGF grammar.
struct VocabularyOptions: ParsableArguments {
    @Option(name: .customLong("context"), help: ArgumentHelp("Intents and slots from a Rhino-format context (repeatable).", valueName: "FILE.yml"))
    var contexts: [String] = []

    @Flag(help: "Leave out the built-in commands (start, stop, pause, resume, done, cancel).")
    var noBuiltins = false

    @Option(help: ArgumentHelp("Decode with a hand-written JSGF grammar instead (transcripts, no intents).", valueName: "FILE.gram"))
    var grammar: String?

    @Option(name: .customLong("dict"), help: ArgumentHelp("Extra pronunciations in CMUdict format, added to the dictionary (repeatable).", valueName: "FILE.dict"))
    var dictionaries: [String] = []

    /// Applies the options that change the decoder itself.
    func apply(to options: inout RecognizerOptions) {
        options.decoder.extraDictionaries = dictionaries.map { URL(fileURLWithPath: $0) }
    }

    func validate() throws {
        if grammar != nil && (!contexts.isEmpty || noBuiltins) { throw ValidationError("--grammar cannot be combined with --context or --no-builtins") }
        if noBuiltins && contexts.isEmpty { throw ValidationError("--no-builtins needs at least one --context") }
    }

    /// Reads the contexts; a context that does not parse ends the command (exit 78).
    func vocabulary() throws -> Vocabulary {
        if let grammar { return .jsgf(URL(fileURLWithPath: grammar)) }
        var loaded: [Context] = []
        for path in contexts {
            do { loaded.append(try Context(contentsOf: URL(fileURLWithPath: path))) } catch {
                Terminal.error(error.description)
                throw ExitCode(78)
            }
        }
        return .commands(noBuiltins ? CommandSet() : .builtins, contexts: loaded)
    }
}

extension VocabularyOptions {
    /// A recognizer for these words with `tuning`'s settings. The contexts are read first (one
    /// that does not parse ends the command), then the permission gate: without speech
    /// recognition authorized, nothing is read or decoded.
    func recognizer(tuning: TuningOptions, app appOptions: AppOptions, learning: SpeakerLearningOptions? = nil) throws -> CommandRecognizer {
        var options = try tuning.options()
        try learning?.apply(to: &options)
        let vocabulary = try vocabulary()
        apply(to: &options)
        let authorization = try appOptions.speechRecognitionAuthorization()
        let recognizer: CommandRecognizer
        do { recognizer = try CommandRecognizer(vocabulary: vocabulary, options: options, authorization: authorization) } catch { throw error.exit() }
        for warning in recognizer.warnings { Terminal.error("warning: \(warning)") }
        return recognizer
    }
}
