import ArgumentParser
import Foundation
import Heed

/// `heed test new DIR`: a manifest skeleton from what the recordings decode to today.
struct NewSuite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Write a suite.yml for a folder of recordings from what they decode to now.",
        discussion: """
            Decodes every .wav file in DIR with the given contexts and writes DIR/suite.yml: \
            each file's intents and slots, or understood: false. It records what Heed hears \
            today, not what was said: review every line, fix what was misheard, then run \
            `heed test DIR`. With --grammar the manifest holds transcripts (scored by WER).

            Example:
              heed test new recordings/ --context Models/contexts/coffee.yml --no-builtins
            """
    )

    @Argument(help: "A directory of WAV recordings.") var directory: String

    @Flag(help: "Replace an existing suite.yml.") var force = false

    @OptionGroup var vocabularyOptions: VocabularyOptions
    @OptionGroup var tuning: TuningOptions
    @OptionGroup var appOptions: AppOptions

    func run() throws {
        let folder = URL(fileURLWithPath: directory).standardizedFileURL
        let manifest = folder.appendingPathComponent("suite.yml")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            Terminal.error("\(directory): no such directory")
            throw ExitCode(66)
        }
        if FileManager.default.fileExists(atPath: manifest.path) && !force {
            Terminal.error("\(manifest.path) already exists; --force replaces it")
            throw ExitCode(73)
        }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.lowercased().hasSuffix(".wav") }.sorted()
        guard !files.isEmpty else {
            Terminal.error("\(directory): no .wav files")
            throw ExitCode(66)
        }
        let authorization = try appOptions.speechRecognitionAuthorization()
        var options = try tuning.options()
        vocabularyOptions.apply(to: &options)
        let vocabulary = try vocabularyOptions.vocabulary()
        let recognizer: CommandRecognizer
        do { recognizer = try CommandRecognizer(vocabulary: vocabulary, options: options, authorization: authorization) } catch { throw error.exit() }
        var text = "# Written by `heed test new` from what these recordings decode to today.\n"
            + "# Review every line: fix what was misheard, then run `heed test \(directory)`.\n"
        if let grammar = vocabularyOptions.grammar {
            text += "grammar: \(JSON.string(Self.relativePath(to: grammar, from: folder)))\n"
        } else {
            if !vocabularyOptions.contexts.isEmpty {
                text += "contexts: [" + vocabularyOptions.contexts.map { JSON.string(Self.relativePath(to: $0, from: folder)) }.joined(separator: ", ") + "]\n"
            }
            text += "builtins: \(!vocabularyOptions.noBuiltins)\n"
        }
        text += "files:\n"
        var unreadable = 0
        for file in files {
            let utterances: [Utterance]
            do {
                utterances = try recognizer.recognize(file: folder.appendingPathComponent(file)).filter(\.understood)
            } catch where error.kind == .permission {
                Terminal.error("stopped at \(file): \(error.message)")
                throw ExitCode(error.exitCode)
            } catch {
                Terminal.error("\(file): \(error.message) (left out)")
                unreadable += 1
                continue
            }
            text += "  \(JSON.string(file)): \(Self.expectations(utterances, transcripts: vocabularyOptions.grammar != nil))\n"
        }
        do {
            try text.write(to: manifest, atomically: true, encoding: .utf8)
        } catch {
            Terminal.error("cannot write \(manifest.path): \(error.localizedDescription)")
            throw ExitCode(73)
        }
        Terminal.note("wrote \(manifest.path): \(files.count - unreadable) files; review it before trusting it")
    }

    /// One file's line: a flow mapping, or a list of them for several utterances.
    static func expectations(_ utterances: [Utterance], transcripts: Bool) -> String {
        let items = utterances.map { utterance -> String in
            if transcripts || utterance.intent == nil { return "{transcript: \(JSON.string(utterance.transcript))}" }
            let intent = utterance.intent!
            let slots = intent.slots.sorted { $0.key < $1.key }.map { "\(JSON.string($0.key)): \(JSON.string($0.value))" }
            return "{intent: \(JSON.string(intent.name))" + (slots.isEmpty ? "" : ", slots: {\(slots.joined(separator: ", "))}") + "}"
        }
        switch items.count {
        case 0: return "{understood: false}"
        case 1: return items[0]
        default: return "[" + items.joined(separator: ", ") + "]"
        }
    }

    /// `path` as seen from `folder` ("../Models/contexts/coffee.yml"), as suite.yml expects.
    static func relativePath(to path: String, from folder: URL) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let base = folder.pathComponents
        var common = 0
        while common < min(target.count, base.count) && target[common] == base[common] { common += 1 }
        return (Array(repeating: "..", count: base.count - common) + target[common...]).joined(separator: "/")
    }
}
