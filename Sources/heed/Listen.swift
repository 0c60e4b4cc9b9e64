import ArgumentParser
import Foundation
import Heed
import HeedShortcuts
import HeedCapture
import Synchronization

/// Set by SIGINT/SIGTERM; the listener stops at its next step and closes the device.
let stopRequested = Atomic<Bool>(false)

/// SIGINT and SIGTERM set `stopRequested`. SIGPIPE is ignored: an --exec command or a reader
/// that goes away must not kill the listener. The signals are unblocked, since a parent may
/// have started us with them blocked (Foundation's Process does), and a listener that cannot be
/// stopped cleanly would leave the device open.
func installStopSignals(_ others: [Int32] = []) {
    signal(SIGPIPE, SIG_IGN)
    signal(SIGINT) { _ in stopRequested.store(true, ordering: .relaxed) }
    signal(SIGTERM) { _ in stopRequested.store(true, ordering: .relaxed) }
    var handled = sigset_t()
    sigemptyset(&handled)
    for signal in [SIGINT, SIGTERM] + others { sigaddset(&handled, signal) }
    pthread_sigmask(SIG_UNBLOCK, &handled, nil)
}

struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Listen to a microphone (or a paced recording) and print each command as it is spoken.",
        discussion: """
            Prints JSON lines (on a terminal, readable lines under a live level meter) for the \
            events listening, speech-start, partial, intent, not-understood, overrun, error and \
            stopped, each with its stream time and a Unix timestamp. Ctrl-C stops cleanly and \
            prints the counts.

            Needs the microphone and speech-recognition permissions (see `heed auth`); with \
            --input only speech recognition, since no device is opened.

            Examples:
              heed listen
              heed listen --device plughw:1,0
              heed listen --input Audio/demo/start-pause-stop.wav
            """
    )

    @Option(help: ArgumentHelp("ALSA capture device (see `heed devices`).", valueName: "NAME"))
    var device = "default"

    @Option(help: ArgumentHelp("Play this WAV file through the live path in real time instead of capturing.", valueName: "FILE.wav"))
    var input: String?

    @Option(help: ArgumentHelp("Stop after this much audio.", valueName: "SECONDS"))
    var duration: Double?

    @Option(help: ArgumentHelp("When the device is missing or goes away (a USB microphone unplugged), try to open it again this often instead of stopping (device-lost and device-restored events).", valueName: "SECONDS"))
    var reconnect: Double?

    @Option(help: ArgumentHelp("Audio the ring buffer holds while the decoder is busy.", valueName: "SECONDS"))
    var buffer = 2.0

    @Option(help: ArgumentHelp("Report the words heard so far this often while someone speaks; 0 turns partials off (each one decodes the speech so far again).", valueName: "SECONDS"))
    var partials = 0.4

    @Flag(inversion: .prefixedNo, help: "JSON Lines output (default when stdout is not a terminal).")
    var json: Bool?

    @Option(help: ArgumentHelp("Run this shell command for each intent, with HEED_INTENT, HEED_SLOT_<NAME>, HEED_TRANSCRIPT and HEED_CONFIDENCE set and the event's JSON on stdin. Commands run one at a time, in order.", valueName: "CMD"))
    var exec: String?

    @Flag(help: "Say the questions and responses of context dialogues aloud with espeak-ng.")
    var speak = false

    @OptionGroup var vocabularyOptions: VocabularyOptions
    @Flag(help: "Leave out the phrases of donated shortcuts (see `heed shortcuts`); otherwise donations and deletions take effect within a second.")
    var noShortcuts = false
    @OptionGroup var tuning: TuningOptions
    @OptionGroup var learning: SpeakerLearningOptions
    @OptionGroup var appOptions: AppOptions

    func validate() throws {
        if let duration, !(duration > 0 && duration <= 1e7) { throw ValidationError("--duration must be between 0 and 10000000 seconds") }
        if !(0.1...600).contains(buffer) { throw ValidationError("--buffer must be between 0.1 and 600 seconds") }
        if partials < 0 { throw ValidationError("--partials must be 0 (off) or a positive interval") }
        if let reconnect, !(0.05...3600).contains(reconnect) { throw ValidationError("--reconnect must be between 0.05 and 3600 seconds") }
        if reconnect != nil && input != nil { throw ValidationError("--reconnect is for capture devices, not --input") }
        try learning.validate(speaker: tuning.speaker)
    }

    func run() throws {
        let source: LiveSource
        let speech: Authorization
        do {
            let app = try appOptions.manifest()
            let authorizer = try appOptions.authorizer()
            let prompter = TerminalPrompter.ifInteractive
            // Both purpose strings are checked before anything is asked or opened.
            if input == nil { _ = try app.purpose(for: .microphone) }
            speech = try authorizer.authorize(.speechRecognition, for: app, prompter: prompter)
            if let input {
                source = .pacedFile(URL(fileURLWithPath: input))
            } else {
                source = .device(name: device, microphone: try authorizer.authorize(.microphone, for: app, prompter: prompter),
                                 reconnect: reconnect.map { .milliseconds(Int($0 * 1000)) })
            }
        } catch {
            throw error.exit()
        }
        let recognizer: CommandRecognizer
        let vocabulary = try vocabularyOptions.vocabulary()
        var options = try tuning.options()
        try learning.apply(to: &options)
        vocabularyOptions.apply(to: &options)
        options.partialInterval = partials > 0 ? partials : nil
        do { recognizer = try CommandRecognizer(vocabulary: vocabulary, options: options, authorization: speech) } catch { throw error.exit() }
        if let input { Terminal.warnIfNarrowband(input, modelRate: recognizer.sampleRate) }
        installStopSignals()

        let dialogue = recognizer.makeConversation()
        let writer = EventWriter(json: json ?? !Terminal.stdoutIsTerminal, dialogue: dialogue != nil)
        let runner = exec.map(IntentCommandRunner.init(command:))
        let speaker = speak ? Speaker() : nil
        var failure: HeedError?
        var learned = options.speaker?.phrases ?? 0, learningFailed: ExitCode?
        let shortcuts = noShortcuts || vocabularyOptions.grammar != nil ? nil : try Shortcuts.store(stateDir: appOptions.stateDir)
        do {
            try Listener(source: source, recognizer: recognizer, bufferSeconds: buffer, maxSeconds: duration, shortcuts: shortcuts)
                .run(shouldStop: { stopRequested.load(ordering: .relaxed) }) { event in
                    writer.write(event)
                    if learning.learnSpeaker != nil, learningFailed == nil {
                        // A command is learned from just after it is reported; the profile is
                        // written at the next event (it is cheap to ask), so stopping loses nothing.
                        do { learned = try learning.save(recognizer, after: learned) } catch {
                            learningFailed = error as? ExitCode ?? ExitCode(73)
                            stopRequested.store(true, ordering: .relaxed)
                        }
                    }
                    switch event {
                    case .utterance(let utterance) where utterance.understood && dialogue == nil:
                        runner?.run(for: utterance, json: EventWriter(json: true, dialogue: false).line(for: event))
                    case .dialogue(.prompt(let prompt), _):
                        speaker?.say(prompt.question)
                    case .dialogue(.completed(let intent), let time):
                        // Handle: act, then say how it went (the context's success or failure response).
                        let respond: @Sendable (Bool) -> Void = { succeeded in
                            guard let text = dialogue?.response(for: intent, succeeded: succeeded) else { return }
                            writer.writeAtomically(.init(text: text, succeeded: succeeded, intent: intent, time: time))
                            speaker?.say(text)
                        }
                        if let runner {
                            runner.run(for: intent, transcript: "", confidence: nil, json: EventWriter(json: true, dialogue: true).line(for: event), completion: respond)
                        } else {
                            respond(true)
                        }
                    case .stopped(let error, _, _, _):
                        failure = error
                    default:
                        break
                    }
                }
        } catch {
            Terminal.error(error.message)
            throw ExitCode(error.exitCode)
        }
        runner?.finish()
        speaker?.finish()
        if let learningFailed { throw learningFailed }
        if let failure { throw ExitCode(failure.exitCode) }
    }
}

/// Prints listen events: JSON Lines for programs; for people, a line per event under a live
/// input level meter.
struct EventWriter: Sendable {
    let json: Bool
    /// Utterances are turns of a dialogue: printed as `heard`, and intents come from the dialogue.
    var dialogue = false

    /// What the handler reports after acting on a completed intent.
    struct Response {
        var text: String
        var succeeded: Bool
        var intent: Intent
        var time: Double
    }

    /// Prints a response from another thread: one write, so it never splits another line.
    func writeAtomically(_ response: Response) {
        let line = json
            ? "{\"event\":\"response\",\"time\":\(JSON.number(response.time)),\"timestamp\":\(JSON.number(Date().timeIntervalSince1970, decimals: 3)),"
                + "\"intent\":\(JSON.string(response.intent.name)),\"result\":\"\(response.succeeded ? "success" : "failure")\",\"text\":\(JSON.string(response.text))}"
            : String(format: "%7.2f  ", response.time) + "> " + response.text
        Self.emit(line + "\n")
    }

    /// Writes to stdout directly. SIGPIPE is ignored (for --exec), so a reader that went away
    /// shows up here as an error: then listening stops, as it would have by the signal.
    static func emit(_ text: String) {
        do { try FileHandle.standardOutput.write(contentsOf: Data(text.utf8)) } catch { stopRequested.store(true, ordering: .relaxed) }
    }

    func write(_ event: ListenEvent) {
        if case .level(let db) = event {
            // The meter redraws one line in place; JSON output has no level events.
            if !json { Self.emit("\r\u{1B}[K" + Self.meter(db)) }
            return
        }
        Self.emit((json ? "" : "\r\u{1B}[K") + line(for: event) + "\n")
    }

    static func dialogueLine(_ step: Conversation.Event, time: Double, timestamp: String, json: Bool) -> String {
        func fields(_ intent: Intent) -> String {
            "\"time\":\(JSON.number(time)),\"timestamp\":\(timestamp),\"intent\":\(JSON.string(intent.name)),\"slots\":\(Shortcuts.jsonSlots(intent.slots))"
        }
        let at = String(format: "%7.2f  ", time)
        switch step {
        case .prompt(let prompt):
            return json ? "{\"event\":\"prompt\",\(fields(prompt.intent)),\"slot\":\(prompt.slot.map(JSON.string) ?? "null"),\"question\":\(JSON.string(prompt.question))}"
                : at + "? \(prompt.question)  (\(Shortcuts.describe(prompt.intent)))"
        case .completed(let intent):
            return json ? "{\"event\":\"intent\",\(fields(intent))}" : at + "intent \(Shortcuts.describe(intent))"
        case .aborted(let intent, let reason):
            return json ? "{\"event\":\"aborted\",\(fields(intent)),\"reason\":\"\(reason.rawValue)\"}"
                : at + "aborted \(Shortcuts.describe(intent)): \(reason.rawValue)"
        }
    }

    /// "[#########-----------]  -32 dBFS", from -70 to -10 dBFS.
    static func meter(_ db: Double) -> String {
        let width = 30
        let filled = max(0, min(width, Int(((db + 70) / 60 * Double(width)).rounded())))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(format: "%4.0f dBFS", max(-99, db))
    }

    func line(for event: ListenEvent) -> String {
        let timestamp = JSON.number(Date().timeIntervalSince1970, decimals: 3)
        let line: String
        switch event {
        case .listening(let source, let format):
            line = json ? "{\"event\":\"listening\",\"time\":0.00,\"timestamp\":\(timestamp),\"source\":\(JSON.string(source)),\"format\":\(JSON.string(format))}"
                : "listening on \(source) (\(format)); Ctrl-C stops"
        case .speechStart(let time):
            line = json ? "{\"event\":\"speech-start\",\"time\":\(JSON.number(time)),\"timestamp\":\(timestamp)}" : String(format: "%7.2f  ...", time)
        case .utterance(let utterance):
            if json {
                let fields = UtteranceWriter(json: true).jsonLine(utterance, source: "").dropFirst(#"{"file":"","#.count)
                let name = !utterance.understood ? "not-understood" : dialogue ? "heard" : "intent"
                line = "{\"event\":\"\(name)\",\"time\":\(JSON.number(utterance.end)),\"timestamp\":\(timestamp),\(fields)"
            } else {
                line = UtteranceWriter(json: false).humanLine(utterance, source: "")
            }
        case .dialogue(let step, let time):
            line = Self.dialogueLine(step, time: time, timestamp: timestamp, json: json)
        case .partial(let time, let transcript):
            line = json ? "{\"event\":\"partial\",\"time\":\(JSON.number(time)),\"timestamp\":\(timestamp),\"transcript\":\(JSON.string(transcript))}"
                : String(format: "%7.2f  ", time) + transcript + " ..."
        case .level(let db):
            line = json ? "{\"event\":\"level\",\"timestamp\":\(timestamp),\"dBFS\":\(JSON.number(db, decimals: 1))}" : Self.meter(db)
        case .deviceLost(let message):
            line = json ? "{\"event\":\"device-lost\",\"timestamp\":\(timestamp),\"message\":\(JSON.string(message))}"
                : "device lost: \(message); trying again"
        case .deviceRestored(let format):
            line = json ? "{\"event\":\"device-restored\",\"timestamp\":\(timestamp),\"format\":\(JSON.string(format))}"
                : "device back: \(format)"
        case .shortcuts(let active, let skipped):
            line = json ? "{\"event\":\"shortcuts\",\"timestamp\":\(timestamp),\"active\":\(active),\"skipped\":[\(skipped.map(JSON.string).joined(separator: ","))]}"
                : (["shortcuts: \(active) phrase\(active == 1 ? "" : "s") active"] + skipped.map { "  \($0)" }).joined(separator: "\n")
        case .overrun(let dropped, let overruns):
            line = json ? "{\"event\":\"overrun\",\"timestamp\":\(timestamp),\"droppedSamples\":\(dropped),\"deviceOverruns\":\(overruns)}"
                : "overrun: \(dropped) samples dropped so far, \(overruns) device overruns"
        case .stopped(let error, let seconds, let dropped, let overruns):
            var lines: [String] = []
            if let error {
                lines.append(json ? "{\"event\":\"error\",\"timestamp\":\(timestamp),\"message\":\(JSON.string(error.message))}" : "error: \(error.message)")
            }
            lines.append(json ? "{\"event\":\"stopped\",\"time\":\(JSON.number(seconds)),\"timestamp\":\(timestamp),\"seconds\":\(JSON.number(seconds)),\"droppedSamples\":\(dropped),\"deviceOverruns\":\(overruns)}"
                : "stopped after \(String(format: "%.1f", seconds)) s: \(dropped) samples dropped, \(overruns) device overruns")
            line = lines.joined(separator: "\n")
        }
        return line
    }
}

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List ALSA capture devices, like `arecord -L`; * marks the default.")

    func run() throws {
        for device in CaptureDevice.list() {
            print("\(device.name == "default" ? "*" : " ") \(device.name)")
            if !device.description.isEmpty { print("    \(device.description)") }
        }
    }
}
