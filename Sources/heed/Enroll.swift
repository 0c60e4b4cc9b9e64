import ArgumentParser
import Foundation
import Heed

struct Enroll: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Learn a speaker's voice from recordings of known sentences, for --speaker.",
        discussion: """
            The model was trained on American English. A speaker whose vowels sit elsewhere (a \
            British "start" and "stop") fits it less well, and in noise that decides between two \
            commands. Enrollment moves each phone of the model towards how this speaker says it.

            LIST names the recordings, one per line: a WAV file (relative to the list's folder), \
            then the words said in it. Lines starting with # are skipped. Any sentences will do; \
            `heed enroll --prompts` prints twenty that cover the sounds of English. Record them \
            in a quiet room, one sentence per file: a noisy recording is refused.

            Examples:
              heed enroll --prompts
              heed enroll me/enroll.txt --output me.speaker.json
              heed listen --speaker me.speaker.json
            """
    )

    @Argument(help: "The list of recordings and their words.")
    var list: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the speaker profile (JSON).", valueName: "FILE.json"))
    var output: String?

    @Flag(help: "Print the sentences to record, one per line, and exit.")
    var prompts = false

    @OptionGroup var appOptions: AppOptions

    func validate() throws {
        if prompts { return }
        guard list != nil else { throw ValidationError("name the list of recordings (or use --prompts)") }
        guard output != nil else { throw ValidationError("--output FILE.json is required") }
    }

    func run() throws {
        if prompts {
            Enrollment.prompts.forEach { print($0) }
            return
        }
        guard let list, let output else { return }
        let recordings = try Self.readList(list)
        let authorization = try appOptions.speechRecognitionAuthorization()
        let enrollment: Enrollment
        do { enrollment = try Enrollment(authorization: authorization) } catch { throw error.exit() }
        for recording in recordings {
            do { try enrollment.add(file: recording.file, saying: recording.text) } catch {
                Terminal.error("\(list):\(recording.line): \(error.message)")
                throw ExitCode(error.exitCode)
            }
        }
        let profile = enrollment.profile()
        do { try SpeakerProfileFile.write(profile, to: output) } catch {
            Terminal.error("cannot write \(output): \(error.localizedDescription)")
            throw ExitCode(73)
        }
        print(String(format: "%@: %d phrases, %.1f s of speech; largest phone shift %.2f", output, profile.phrases, profile.speechSeconds, profile.largestShift))
    }

    /// The list's lines: a file, whitespace, the words.
    static func readList(_ path: String) throws -> [(file: URL, text: String, line: Int)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            Terminal.error("cannot read the list \(path)")
            throw ExitCode(66)
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        var recordings: [(file: URL, text: String, line: Int)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let parts = trimmed.split(maxSplits: 1, whereSeparator: \.isWhitespace).map(String.init)
            guard parts.count == 2 else {
                Terminal.error("\(path):\(index + 1): expected a WAV file and the words said in it")
                throw ExitCode(65)
            }
            let file = parts[0].hasPrefix("/") ? URL(fileURLWithPath: parts[0]) : folder.appendingPathComponent(parts[0])
            recordings.append((file, parts[1], index + 1))
        }
        guard !recordings.isEmpty else {
            Terminal.error("\(path): no recordings listed")
            throw ExitCode(65)
        }
        return recordings
    }
}

/// Speaker profiles on disk: JSON, written whole or not at all.
enum SpeakerProfileFile {
    static func read(_ path: String) throws -> SpeakerProfile {
        guard let data = FileManager.default.contents(atPath: path) else {
            Terminal.error("cannot read the speaker profile \(path)")
            throw ExitCode(66)
        }
        do { return try JSONDecoder().decode(SpeakerProfile.self, from: data) } catch {
            Terminal.error("\(path) is not a speaker profile (make one with `heed enroll`)")
            throw ExitCode(65)
        }
    }

    static func write(_ profile: SpeakerProfile, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(profile).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
