import ArgumentParser
import Foundation
import Heed
import HeedRecognition
import HeedAudio

struct Enroll: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Learn a speaker's voice from recordings of known sentences, for --speaker.",
        discussion: """
            The model was trained on American English. A speaker whose vowels sit elsewhere (a \
            British "start" and "stop") fits it less well, and in noise that decides between two \
            commands. Enrollment moves each phone of the model towards how this speaker says it. \
            Enroll a speaker whose commands the model mishears: on voices it already hears well, \
            enrollment gained little and let more near misses through. A profile is for its \
            speaker only: other voices decoded with it lose commands (docs/enrollment.md).

            With --record DIR, heed asks for twenty sentences that cover the sounds of English, \
            one at a time, and records each from the microphone (--device) as it is read; one \
            that does not sound like its sentence, or is too noisy, is asked for again. The \
            recordings are kept in DIR with their list, enroll.txt.

            Or record them yourself (`heed enroll --prompts` prints the sentences) and give their \
            LIST: one per line, a WAV file (relative to the list's folder), then the words said \
            in it. Lines starting with # are skipped. Any sentences will do. Record in a quiet \
            room, one sentence per file: a noisy recording is refused.

            Nothing to read: `heed listen --learn-speaker FILE` learns the speaker from their own             commands instead, as they are understood, and can start from a profile made here.

            Examples:
              heed enroll --record me --output me.speaker.json
              heed enroll me/enroll.txt --output me.speaker.json
              heed listen --speaker me.speaker.json
              heed listen --learn-speaker me.speaker.json
            """
    )

    @Argument(help: "The list of recordings and their words.")
    var list: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the speaker profile (JSON).", valueName: "FILE.json"))
    var output: String?

    @Flag(help: "Print the sentences to record, one per line, and exit.")
    var prompts = false

    @Option(help: ArgumentHelp("Ask for the sentences one by one and record them from the microphone into DIR (kept, with DIR/enroll.txt).", valueName: "DIR"))
    var record: String?

    @Option(help: ArgumentHelp("The capture device for --record (see `heed devices`).", valueName: "NAME"))
    var device = "default"

    @Option(help: ArgumentHelp("With --record, stop after this much audio in all.", valueName: "SECONDS"))
    var duration: Double?

    @OptionGroup var appOptions: AppOptions

    func validate() throws {
        if prompts { return }
        if list != nil && record != nil { throw ValidationError("give a list of recordings or --record DIR, not both") }
        guard list != nil || record != nil else { throw ValidationError("name the list of recordings, or use --record DIR (or --prompts)") }
        guard output != nil else { throw ValidationError("--output FILE.json is required") }
        if let duration, !(duration > 0 && duration <= 1e7) { throw ValidationError("--duration must be between 0 and 10000000 seconds") }
    }

    func run() throws {
        if prompts {
            Enrollment.prompts.forEach { print($0) }
            return
        }
        guard let output else { return }
        let enrollment: Enrollment
        if let record {
            enrollment = try recordSentences(into: record)
        } else if let list {
            let recordings = try Self.readList(list)
            let authorization = try appOptions.speechRecognitionAuthorization()
            do { enrollment = try Enrollment(authorization: authorization) } catch { throw error.exit() }
            for recording in recordings {
                do { try enrollment.add(file: recording.file, saying: recording.text) } catch {
                    Terminal.error("\(list):\(recording.line): \(error.message)")
                    throw ExitCode(error.exitCode)
                }
            }
        } else {
            return
        }
        let profile = enrollment.profile()
        do { try SpeakerProfileFile.write(profile, to: output) } catch {
            Terminal.error("cannot write \(output): \(error.localizedDescription)")
            throw ExitCode(73)
        }
        print(String(format: "%@: %d phrases, %.1f s of speech; largest phone shift %.2f", output, profile.phrases, profile.speechSeconds, profile.largestShift))
    }

    /// Asks for each sentence, records it from --device, learns it, and keeps the recordings in
    /// `folder` with their list (written once all are in, so a stopped session leaves no half list).
    private func recordSentences(into folder: String) throws -> Enrollment {
        let speech: Authorization, microphone: Authorization
        do {
            let app = try appOptions.manifest()
            let authorizer = try appOptions.authorizer()
            let prompter = TerminalPrompter.ifInteractive
            _ = try app.purpose(for: .microphone)  // both purpose strings before anything is asked
            speech = try authorizer.authorize(.speechRecognition, for: app, prompter: prompter)
            microphone = try authorizer.authorize(.microphone, for: app, prompter: prompter)
        } catch {
            throw error.exit()
        }
        let directory = URL(fileURLWithPath: folder)
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            Terminal.error("cannot create \(folder): \(error.localizedDescription)")
            throw ExitCode(73)
        }
        let enrollment: Enrollment
        do { enrollment = try Enrollment(authorization: speech) } catch { throw error.exit() }
        let recordings: [[Int16]]
        do {
            recordings = try EnrollmentRecorder(enrollment: enrollment).record(Enrollment.prompts, from: .device(name: device, microphone: microphone), maxSeconds: duration) { event in
                switch event {
                case .prompt(let number, let total, let sentence): print("\(number)/\(total)  Say: \(sentence)")
                case .learned(_, let seconds): print(String(format: "      ok (%.1f s)", seconds))
                case .retry(_, let why): print("      again: \(why)")
                }
                fflush(nil)  // each prompt shows at once, even through a pipe
            }
        } catch {
            throw error.exit()
        }
        var list = "# Recordings for heed enroll: a file, then the words said in it. Made by heed enroll --record.\n"
        do {
            for (index, (samples, sentence)) in zip(recordings, Enrollment.prompts).enumerated() {
                let name = String(format: "%02d.wav", index + 1)
                try WAVFile.encode(samples: samples, sampleRate: enrollment.sampleRate).write(to: directory.appendingPathComponent(name), options: .atomic)
                list += "\(name) \(sentence)\n"
            }
            try list.write(to: directory.appendingPathComponent("enroll.txt"), atomically: true, encoding: .utf8)
        } catch {
            Terminal.error("cannot write the recordings to \(folder): \(error.localizedDescription)")
            throw ExitCode(73)
        }
        return enrollment
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

/// `--learn-speaker FILE.json` for the commands that hear commands (recognize, listen): learn the
/// speaker from their own commands, starting from FILE when it exists, and keep FILE up to date.
struct SpeakerLearningOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Learn the speaker from the commands understood surely in quiet, as `heed enroll` does from sentences, and keep the profile in this file (read first when it exists, rewritten after each command learned). For one person's board: it learns everyone who speaks.",
        valueName: "FILE.json"))
    var learnSpeaker: String?

    func validate(speaker: String?) throws {
        if speaker != nil && learnSpeaker != nil {
            throw ValidationError("give --speaker or --learn-speaker, not both (--learn-speaker starts from its file)")
        }
    }

    /// Turns learning on in `options`, from the profile in the file if there is one (66 when it
    /// cannot be read, 65 when it is not a profile or keeps nothing to learn on, 73 when it could
    /// not be written: said before anything is heard, not after the first command).
    func apply(to options: inout RecognizerOptions) throws {
        guard let learnSpeaker else { return }
        options.learnsSpeaker = true
        let files = FileManager.default
        let folder = URL(fileURLWithPath: learnSpeaker).deletingLastPathComponent().path
        // Written whole or not at all: a new file beside it, renamed over it.
        guard files.isWritableFile(atPath: folder), !files.fileExists(atPath: learnSpeaker) || files.isWritableFile(atPath: learnSpeaker) else {
            Terminal.error("cannot write the speaker profile \(learnSpeaker)")
            throw ExitCode(73)
        }
        guard files.fileExists(atPath: learnSpeaker) else { return }
        let profile = try SpeakerProfileFile.read(learnSpeaker)
        guard profile.statistics != nil else {
            Terminal.error("\(learnSpeaker) keeps no statistics to learn on (written by an older heed); enroll again, or give it to --speaker")
            throw ExitCode(65)
        }
        options.speaker = profile
    }

    /// Writes what `recognizer` has learned when it learned more since `saved` phrases; returns the
    /// phrases now saved. Exit 73 when the file cannot be written.
    func save(_ recognizer: CommandRecognizer, after saved: Int) throws -> Int {
        guard let learnSpeaker, let profile = recognizer.learnedSpeaker, profile.phrases != saved else { return saved }
        do { try SpeakerProfileFile.write(profile, to: learnSpeaker) } catch {
            Terminal.error("cannot write the speaker profile \(learnSpeaker): \(error.localizedDescription)")
            throw ExitCode(73)
        }
        return profile.phrases
    }
}
