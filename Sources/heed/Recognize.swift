import ArgumentParser
import Foundation
import Heed
import HeedShortcuts
import HeedAudio

struct Recognize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode recordings into commands, one line per utterance.",
        discussion: """
            Each recording (WAV: PCM 8/16/24/32-bit or float; FLAC, Ogg Vorbis, Opus or MP3; any \
            common rate, mono or stereo; told by its content) is converted to the model's rate, \
            split into utterances where the speaker pauses, and decoded against the active \
            commands. `-` reads stdin: a recording (WAV, FLAC, Ogg, or MP3 with an ID3 tag), or \
            else raw 16 kHz mono S16LE.

            Built-in commands: start, stop, pause, resume, done, cancel; --context adds intents \
            with slots from Rhino-format YAML. Speech that is not a command is reported with \
            "understood": false.

            Examples:
              heed recognize Audio/demo/stop.wav
              heed recognize Audio/demo/*.wav --json
              heed recognize --context Models/contexts/coffee.yml Audio/coffee/orderDrink-01-en-us.wav
              heed recognize --explain Audio/demo/stop.wav
              sox in.wav -t raw -r 16000 -c 1 -e signed -b 16 - | heed recognize -
            """
    )

    @Argument(help: "Recordings (WAV, FLAC, Ogg Vorbis, Opus, MP3), or - for stdin: a recording, or raw 16 kHz mono S16LE.")
    var inputs: [String]

    @Flag(inversion: .prefixedNo, help: "JSON Lines output (default when stdout is not a terminal).")
    var json: Bool?

    @OptionGroup var vocabularyOptions: VocabularyOptions

    @Flag(help: "Leave out the phrases of donated shortcuts (see `heed shortcuts`).")
    var noShortcuts = false

    @Flag(help: ArgumentHelp(
        "Tell on stderr how each utterance was decided.",
        discussion: "How the noise stage judged it (quiet, or noisy with steady or changing noise), what each decode heard (words no command holds in [brackets]), and which check turned a command away."))
    var explain = false

    @OptionGroup var tuning: TuningOptions

    @OptionGroup var learning: SpeakerLearningOptions

    @OptionGroup var appOptions: AppOptions

    func validate() throws {
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("stdin (-) can be read only once") }
        try learning.validate(speaker: tuning.speaker)
    }

    func run() throws {
        // The gate comes before any audio: without speech recognition authorized, nothing is read or decoded.
        let recognizer = try vocabularyOptions.recognizer(tuning: tuning, app: appOptions, learning: learning)
        if !noShortcuts && vocabularyOptions.grammar == nil {
            let store = try Shortcuts.store(stateDir: appOptions.stateDir)
            do {
                for skipped in try recognizer.setShortcuts(try store.all()) { Terminal.error("warning: \(skipped)") }
            } catch let error as HeedError { throw error.exit() } catch let error as AuthorizationError { throw error.exit() }
        }
        let writer = UtteranceWriter(json: json ?? !Terminal.stdoutIsTerminal, detections: explain)
        if explain { recognizer.onExplanation = { Terminal.note("  " + $0) } }
        var firstFailure: Int32?
        var audioSamples = 0
        var learned = recognizer.options.speaker?.phrases ?? 0
        let started = ContinuousClock.now
        for input in inputs {
            do {

                if input == "-" {
                    audioSamples += try decodeStandardInput(recognizer, writer: writer)
                } else {
                    Terminal.warnIfNarrowband(input, modelRate: recognizer.sampleRate)
                    audioSamples += try recognizer.recognizeEvents(file: URL(fileURLWithPath: input)) { writer.write($0, source: input) }
                }
            } catch where error.kind == .permission {
                // Permission withdrawn mid-batch: stop hearing anything at all.
                Terminal.error("stopped at \(input): \(error.message)")
                throw ExitCode(error.exitCode)
            } catch {
                Terminal.error("\(input): \(error.message)")
                firstFailure = firstFailure ?? error.exitCode
            }
            learned = try learning.save(recognizer, after: learned)
            fflush(nil)
        }
        if Terminal.stderrIsTerminal, audioSamples > 0 {
            let audio = Double(audioSamples) / Double(recognizer.sampleRate)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            Terminal.note(String(format: "decoded %.1f s of audio in %.2f s (real-time factor %.3f)", audio, seconds, seconds / audio))
        }
        if let firstFailure { throw ExitCode(firstFailure) }
    }

    /// Streams stdin through the recognizer, printing each utterance as soon as it ends.
    /// Returns how many samples were read.
    private func decodeStandardInput(_ recognizer: CommandRecognizer, writer: UtteranceWriter) throws(HeedError) -> Int {
        var stream = recognizer.makeStream()
        var carry: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw HeedError(.cannotOpen, "cannot read stdin: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            carry.append(contentsOf: buffer[0..<count])
            if stream.position == 0, carry.count < 4 { continue }
            if stream.position == 0, CompressedAudio.startsRecording(carry) {
                return try decodeRecordingOnStandardInput(carry, recognizer, writer: writer)
            }
            let usable = carry.count & ~1
            let found = try stream.feedEvents(PCM.int16(littleEndianBytes: Array(carry[0..<usable])))
            carry.removeFirst(usable)
            found.forEach { writer.write($0, source: "-") }
            fflush(nil)
        }
        // Raw samples shorter than a recording's first bytes.
        if carry.count >= 2 { try stream.feedEvents(PCM.int16(littleEndianBytes: Array(carry[0..<(carry.count & ~1)]))).forEach { writer.write($0, source: "-") } }
        try stream.finishEvents().forEach { writer.write($0, source: "-") }
        return stream.position
    }

    /// A recording on stdin (WAV, FLAC, Ogg, MP3 with its tag: `CompressedAudio.startsRecording`),
    /// whose first bytes `head` holds: kept in a temporary file, which its formats need to seek
    /// in, then decoded as a file is.
    private func decodeRecordingOnStandardInput(_ head: [UInt8], _ recognizer: CommandRecognizer,
                                                writer: UtteranceWriter) throws(HeedError) -> Int {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heed-stdin-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        guard FileManager.default.createFile(atPath: file.path, contents: Data(head)),
              let out = try? FileHandle(forWritingTo: file) else {
            throw HeedError(.cannotOpen, "cannot keep the recording on stdin in \(file.deletingLastPathComponent().path)")
        }
        do {
            try out.seekToEnd()
            while let piece = try FileHandle.standardInput.read(upToCount: 1 << 16), !piece.isEmpty { try out.write(contentsOf: piece) }
            try out.close()
        } catch {
            throw HeedError(.cannotOpen, "cannot read stdin: \(error.localizedDescription)")
        }
        let samples = try recognizer.recognizeEvents(file: file) { writer.write($0, source: "-") }
        return samples
    }
}
