import ArgumentParser
import Foundation
import Heed

struct Recognize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode recordings into commands, one line per utterance.",
        discussion: """
            Each WAV file (PCM 8/16/24/32-bit or float, any common rate, mono or stereo) is \
            converted to the model's rate, split into utterances where the speaker pauses, and \
            decoded against the active commands. `-` reads raw 16 kHz mono S16LE from stdin.

            Built-in commands: start, stop, pause, resume, done, cancel; --context adds intents \
            with slots from Rhino-format YAML. Speech that is not a command is reported with \
            "understood": false.

            Examples:
              heed recognize Audio/demo/stop.wav
              heed recognize Audio/demo/*.wav --json
              heed recognize --context Models/contexts/coffee.yml Audio/coffee/orderDrink-01-en-us.wav
              sox in.wav -t raw -r 16000 -c 1 -e signed -b 16 - | heed recognize -
            """
    )

    @Argument(help: "WAV files, or - for raw 16 kHz mono S16LE on stdin.")
    var inputs: [String]

    @Flag(inversion: .prefixedNo, help: "JSON Lines output (default when stdout is not a terminal).")
    var json: Bool?

    @OptionGroup var vocabularyOptions: VocabularyOptions

    @Option(help: ArgumentHelp("Seconds of silence that end an utterance.", valueName: "SECONDS"))
    var trailingSilence: Double?

    @Option(help: ArgumentHelp("Per-word probability of the non-command path; higher rejects more.", valueName: "P"))
    var garbagePenalty: Double?

    @Option(help: ArgumentHelp("Report decoded commands below this confidence as not understood.", valueName: "0..1"))
    var minConfidence: Double?

    @Option(help: ArgumentHelp("Write PocketSphinx's own log to this file (default: discarded).", valueName: "FILE"))
    var decoderLog: String?

    @OptionGroup var appOptions: AppOptions

    @Option(name: .customLong("decoder-arg"), help: ArgumentHelp("Pass a PocketSphinx argument through, e.g. -beam=1e-60 (for tuning).", valueName: "-NAME=VALUE", visibility: .hidden))
    var decoderArguments: [String] = []

    func validate() throws {
        for argument in decoderArguments where !argument.hasPrefix("-") || !argument.contains("=") {
            throw ValidationError("--decoder-arg takes -NAME=VALUE, got '\(argument)'")
        }
        if let minConfidence, !(0...1).contains(minConfidence) { throw ValidationError("--min-confidence must be between 0 and 1") }
        if let garbagePenalty, !(garbagePenalty > 0 && garbagePenalty <= 1) { throw ValidationError("--garbage-penalty must be in (0, 1]") }
        if let trailingSilence, !(0.05...5).contains(trailingSilence) { throw ValidationError("--trailing-silence must be between 0.05 and 5 seconds") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("stdin (-) can be read only once") }
    }

    func run() throws {
        var options = RecognizerOptions()
        if let garbagePenalty { options.garbageWordPenalty = garbagePenalty }
        if let minConfidence { options.minConfidence = minConfidence }
        if let trailingSilence { options.endpointer.trailingSilence = trailingSilence }
        if let decoderLog { options.decoder.logFile = URL(fileURLWithPath: decoderLog) }
        for argument in decoderArguments {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            options.decoder.arguments[parts[0]] = parts[1]
        }
        let vocabulary = try vocabularyOptions.vocabulary()
        vocabularyOptions.apply(to: &options)

        // The gate comes first: without speech recognition authorized, nothing is read or decoded.
        let authorization: Authorization
        do {
            let app = try appOptions.manifest()
            authorization = try appOptions.authorizer().authorize(.speechRecognition, for: app, prompter: TerminalPrompter.ifInteractive)
        } catch {
            throw error.exit()
        }
        let recognizer: CommandRecognizer
        do {
            recognizer = try CommandRecognizer(vocabulary: vocabulary, options: options, authorization: authorization)
        } catch {
            Terminal.error(error.message)
            throw ExitCode(error.exitCode)
        }
        let writer = UtteranceWriter(json: json ?? !Terminal.stdoutIsTerminal)
        var firstFailure: Int32?
        var audioSamples = 0
        let started = ContinuousClock.now
        for input in inputs {
            do {

                if input == "-" {
                    audioSamples += try decodeStandardInput(recognizer, writer: writer)
                } else {
                    let samples = try recognizer.loadAudio(file: URL(fileURLWithPath: input))
                    audioSamples += samples.count
                    try recognizer.recognize(samples: samples).forEach { writer.write($0, source: input) }
                }
            } catch where error.kind == .permission {
                // Permission withdrawn mid-batch: stop hearing anything at all.
                Terminal.error("stopped at \(input): \(error.message)")
                throw ExitCode(error.exitCode)
            } catch {
                Terminal.error("\(input): \(error.message)")
                firstFailure = firstFailure ?? error.exitCode
            }
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
            let usable = carry.count & ~1
            let found = try stream.feed(PCM.int16(littleEndianBytes: Array(carry[0..<usable])))
            carry.removeFirst(usable)
            found.forEach { writer.write($0, source: "-") }
            fflush(nil)
        }
        try stream.finish().forEach { writer.write($0, source: "-") }
        return stream.position
    }
}
