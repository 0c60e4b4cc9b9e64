import ArgumentParser
import Foundation
import Heed
import HeedService
import HeedShortcuts
import Synchronization

/// Set by SIGHUP: the configuration and contexts are read again.
let reloadRequested = Atomic<Bool>(false)

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run as a service: listen, serve Wyoming (Home Assistant) and Hermes over MQTT, and keep running.",
        discussion: """
            Settings come from one YAML file: /etc/heed/heed.yml when it exists, or --config FILE \
            (docs/service.md); the flags override it. Prints a JSON line for each event, as \
            `heed listen` does, with the site it came from; logs go to stderr with sd-daemon \
            level prefixes for journald. SIGHUP reads the configuration and contexts again \
            without dropping audio; SIGTERM stops cleanly. Under systemd (NOTIFY_SOCKET) it \
            sends READY=1 once capture and grammar are up, and WATCHDOG=1 while audio keeps arriving.

            Capture is on unless the service is only a Wyoming server or MQTT hub (then \
            --capture turns it on). A service has no terminal to ask for permission on: the \
            admin policy (/etc/heed/policy.yml) authorizes it.

            Examples:
              heed serve --context Models/contexts/coffee_maker.yaml --wake "hey barista"
              heed serve --wyoming tcp://0.0.0.0:10300 --context Models/contexts/coffee_maker.yaml
              heed serve --mqtt mqtt://localhost:1883 --site-id kitchen
              heed serve --mqtt mqtt://hub.local --hub
            """
    )

    @Option(help: ArgumentHelp("The configuration file (default: /etc/heed/heed.yml when it exists).", valueName: "FILE.yml"))
    var config: String?

    @Option(help: ArgumentHelp("ALSA capture device (default: default).", valueName: "NAME"))
    var device: String?

    @Option(help: ArgumentHelp("Play this recording in real time instead of capturing; the service stops when it ends.", valueName: "FILE"))
    var input: String?

    @Flag(inversion: .prefixedNo, help: "Capture from the device or --input (default: on, unless only serving Wyoming or a hub).")
    var capture: Bool?

    @Option(help: ArgumentHelp("Hear the contexts only in a short window after this phrase.", valueName: "PHRASE"))
    var wake: String?

    @Option(help: ArgumentHelp("Seconds after the wake phrase in which a command is heard (default 8).", valueName: "SECONDS"))
    var wakeWindow: Double?

    @Flag(inversion: .prefixedNo, help: "With --wake, hear the built-in commands without it too (default: on).")
    var builtinsAlwaysOn: Bool?

    @Option(help: ArgumentHelp("Serve the Wyoming protocol here (Home Assistant); port 10300 by default.", valueName: "tcp://HOST:PORT"))
    var wyoming: String?

    @Option(help: ArgumentHelp("Publish Hermes messages (Rhasspy/Snips) to this MQTT broker.", valueName: "mqtt://HOST:PORT"))
    var mqtt: String?

    @Option(help: ArgumentHelp("This board's site in Hermes messages (default: default).", valueName: "NAME"))
    var siteID: String?

    @Flag(help: "Decode the audio every site publishes on hermes/audioServer/<siteId>/audioFrame (needs --mqtt).")
    var hub = false

    @Option(help: ArgumentHelp("MQTT user name.", valueName: "NAME")) var mqttUsername: String?
    @Option(help: ArgumentHelp("MQTT password.", valueName: "TEXT")) var mqttPassword: String?
    @Option(help: ArgumentHelp("TLS: the broker's CA certificate (as mosquitto_sub --cafile).", valueName: "FILE")) var mqttCafile: String?
    @Option(help: ArgumentHelp("TLS: a directory of CA certificates (--capath).", valueName: "DIR")) var mqttCapath: String?
    @Option(help: ArgumentHelp("TLS: this client's certificate (--cert).", valueName: "FILE")) var mqttCert: String?
    @Option(help: ArgumentHelp("TLS: this client's key (--key).", valueName: "FILE")) var mqttKey: String?
    @Flag(help: "TLS: do not check the broker's host name against its certificate (--insecure).") var mqttInsecure = false

    @Option(help: ArgumentHelp("Audio the ring buffer holds while the decoder is busy.", valueName: "SECONDS"))
    var buffer = 2.0

    @OptionGroup var vocabularyOptions: VocabularyOptions
    @OptionGroup var tuning: TuningOptions
    @OptionGroup var appOptions: AppOptions

    func validate() throws {
        if !(0.1...600).contains(buffer) { throw ValidationError("--buffer must be between 0.1 and 600 seconds") }
        if let wakeWindow, !(1...120).contains(wakeWindow) { throw ValidationError("--wake-window must be between 1 and 120 seconds") }
        if let wake, Context.words(wake).isEmpty { throw ValidationError("--wake needs at least one word") }
        if vocabularyOptions.grammar != nil { throw ValidationError("heed serve hears intents: use --context, not --grammar") }
    }

    /// The settings in effect: the file's, then the flags'.
    struct Effective {
        var file: ServiceConfiguration
        var settings: CommandService.Settings
        var vocabulary: VocabularyOptions
        var tuning: TuningOptions
        var app: AppOptions
    }

    func effective() throws -> Effective {
        var file = ServiceConfiguration()
        let path = config ?? (FileManager.default.fileExists(atPath: ServiceConfiguration.systemPath) ? ServiceConfiguration.systemPath : nil)
        if let path {
            do { file = try ServiceConfiguration(contentsOf: URL(fileURLWithPath: path)) } catch { throw error.exit() }
        }
        var vocabulary = vocabularyOptions
        if vocabulary.contexts.isEmpty { vocabulary.contexts = file.contexts ?? [] }
        if file.builtins == false { vocabulary.noBuiltins = true }
        if vocabulary.noBuiltins && vocabulary.contexts.isEmpty { throw ValidationError("builtins: false needs at least one context") }
        var tuning = self.tuning
        tuning.profile = tuning.profile ?? file.profile
        tuning.sensitivity = tuning.sensitivity ?? file.sensitivity
        var app = appOptions
        app.stateDir = app.stateDir ?? file.stateDir

        var settings = CommandService.Settings()
        settings.bufferSeconds = buffer
        do throws(HeedError) {
            if let address = wyoming ?? file.wyoming { settings.wyoming = try ServiceConfiguration.wyomingAddress(address) }
            if let url = mqtt ?? file.mqtt {
                var broker = try MQTTSettings(url: url)
                broker.username = mqttUsername ?? file.mqttUsername ?? broker.username
                broker.password = mqttPassword ?? file.mqttPassword ?? broker.password
                broker.caFile = mqttCafile ?? file.mqttCAFile ?? broker.caFile
                broker.caPath = mqttCapath ?? file.mqttCAPath ?? (broker.caFile != nil ? nil : broker.caPath)
                broker.certFile = mqttCert ?? file.mqttCert
                broker.keyFile = mqttKey ?? file.mqttKey
                broker.insecure = mqttInsecure || file.mqttInsecure == true
                settings.mqtt = broker
            }
        } catch { throw error.exit() }
        settings.siteID = siteID ?? file.siteID ?? "default"
        settings.hub = hub || file.hub == true
        if settings.hub && settings.mqtt == nil { throw ValidationError("--hub needs --mqtt (or mqtt: in the configuration)") }
        if let phrase = wake ?? file.wake {
            let alwaysOn = (builtinsAlwaysOn ?? file.builtinsAlwaysOn ?? true) ? Set(CommandSet.builtins.intentNames) : []
            settings.wake = WakeGate(phrase: phrase, window: wakeWindow ?? file.wakeWindow ?? 8, alwaysOn: alwaysOn)
        }
        let onlyPeers = settings.wyoming != nil || settings.hub
        if capture ?? file.capture ?? (input != nil || file.input != nil || !onlyPeers) {
            if let input = input ?? file.input {
                settings.microphone = .pacedFile(URL(fileURLWithPath: input))
            } else {
                settings.microphone = .device(name: device ?? file.device ?? "default", microphone: try microphoneAuthorization(app),
                                              reconnect: .seconds(1))
            }
        }
        return Effective(file: file, settings: settings, vocabulary: vocabulary, tuning: tuning, app: app)
    }

    private func microphoneAuthorization(_ app: AppOptions) throws -> Authorization {
        do {
            let manifest = try app.manifest()
            _ = try manifest.purpose(for: .microphone)
            return try app.authorizer().authorize(.microphone, for: manifest, prompter: TerminalPrompter.ifInteractive)
        } catch { throw error.exit() }
    }

    /// The recognizer and the vocabulary it hears (the wake phrase is one more command).
    static func recognizer(_ effective: Effective) throws -> (CommandRecognizer, Vocabulary) {
        var options = try effective.tuning.options()
        effective.vocabulary.apply(to: &options)
        var vocabulary = try effective.vocabulary.vocabulary()
        if let wake = effective.settings.wake, case .commands(var commands, let contexts) = vocabulary {
            commands.add(wake.command)
            vocabulary = .commands(commands, contexts: contexts)
        }
        let speech = try effective.app.speechRecognitionAuthorization()
        do { return (try CommandRecognizer(vocabulary: vocabulary, options: options, authorization: speech), vocabulary) } catch { throw error.exit() }
    }

    func run() throws {
        let log = ServiceLog()
        Terminal.errorPrefix = "<3>"
        let first = try effective()
        let (recognizer, vocabulary) = try Self.recognizer(first)
        for warning in recognizer.warnings { log.warning(warning) }
        if let input = input ?? first.file.input { Terminal.warnIfNarrowband(input, modelRate: recognizer.sampleRate) }

        signal(SIGHUP) { _ in reloadRequested.store(true, ordering: .relaxed) }
        installStopSignals([SIGHUP])

        let writer = EventWriter(json: true)
        let failure = Locked<HeedError?>(nil)
        let shortcuts = try Shortcuts.store(stateDir: first.app.stateDir)
        let service: CommandService
        do throws(HeedError) {
            service = try CommandService(settings: first.settings, recognizer: recognizer, vocabulary: vocabulary,
                                         shortcuts: shortcuts, log: log) { event in
                if case .listen(.stopped(let error?, _, _, _), _) = event { failure.value = error }
                EventWriter.emit(Self.line(for: event, writer: writer) + "\n")
            }
        } catch {
            log.error(error.message)
            throw ExitCode(error.exitCode)
        }
        let stop: @Sendable () -> Bool = { stopRequested.load(ordering: .relaxed) }
        startReloading(service: service, log: log, stop: stop)
        startWatchdog(service: service, stop: stop)
        do throws(HeedError) {
            try service.run(shouldStop: stop) {
                var parts = ["capture: " + (first.settings.microphone.map(Self.describe) ?? "off")]
                if let port = service.wyomingPort { parts.append("wyoming: \(first.settings.wyoming!.host):\(port)") }
                if let broker = first.settings.mqtt { parts.append("mqtt: \(broker.host):\(broker.port)" + (first.settings.hub ? " (hub)" : "")) }
                if let wake = first.settings.wake { parts.append("wake: \"\(wake.phrase)\"") }
                log.info("ready; " + parts.joined(separator: ", "))
                Systemd.ready(status: parts.joined(separator: ", "))
            }
        } catch {
            log.error(error.message)
            Systemd.stopping()
            throw ExitCode(error.exitCode)
        }
        Systemd.stopping()
        log.info("stopped")
        if let error = failure.value {
            log.error(error.message)
            throw ExitCode(error.exitCode)
        }
    }

    static func describe(_ source: LiveSource) -> String {
        switch source {
        case .device(let name, _, _): return name
        case .pacedFile(let url): return url.path
        }
    }

    /// SIGHUP: the configuration and contexts are read again, and a recognizer built beside the
    /// running one; decoding goes on meanwhile, and a configuration that does not load leaves
    /// the running one as it is.
    private func startReloading(service: CommandService, log: ServiceLog, stop: @escaping @Sendable () -> Bool) {
        let command = self
        let thread = Thread {
            while !stop() {
                Thread.sleep(forTimeInterval: 0.1)
                guard reloadRequested.exchange(false, ordering: .relaxed) else { continue }
                Systemd.reloading()
                do {
                    let next = try command.effective()
                    let (recognizer, vocabulary) = try Self.recognizer(next)
                    service.reload(recognizer: recognizer, vocabulary: vocabulary)
                    log.info("reloaded: \(vocabulary.intentNamesBySource.map { "\($0.source) (\($0.intents.count) intents)" }.joined(separator: ", "))"
                             + Self.restartOnly(service.settings, next.settings))
                } catch {
                    log.error("reload failed; still running the previous configuration")
                }
                Systemd.ready(status: "reloaded")
            }
        }
        thread.name = "heed-reload"
        thread.start()
    }

    /// What a reload cannot change while running.
    static func restartOnly(_ running: CommandService.Settings, _ next: CommandService.Settings) -> String {
        var changed: [String] = []
        if running.microphone.map(describe) != next.microphone.map(describe) { changed.append("capture") }
        if running.wyoming?.host != next.wyoming?.host || running.wyoming?.port != next.wyoming?.port { changed.append("wyoming") }
        if running.mqtt != next.mqtt || running.hub != next.hub || running.siteID != next.siteID { changed.append("mqtt") }
        if running.wake != next.wake { changed.append("wake") }
        return changed.isEmpty ? "" : "; \(changed.joined(separator: ", ")) take effect on restart"
    }

    /// `WATCHDOG=1` at half the unit's `WatchdogSec=`, while audio keeps arriving (or, without
    /// capture, while the decoding loop keeps turning).
    private func startWatchdog(service: CommandService, stop: @escaping @Sendable () -> Bool) {
        guard let interval = Systemd.watchdogInterval else { return }
        let capturing = service.settings.microphone != nil
        let thread = Thread {
            var last = service.decoderProgress
            while !stop() {
                Thread.sleep(forTimeInterval: interval)
                let now = service.decoderProgress
                if capturing ? now.microphoneSamples > last.microphoneSamples : now.steps > last.steps { Systemd.watchdog() }
                last = now
            }
        }
        thread.name = "heed-watchdog"
        thread.start()
    }

    /// A JSON line: `heed listen`'s event with the site it came from.
    static func line(for event: ServiceEvent, writer: EventWriter) -> String {
        let timestamp = JSON.number(Date().timeIntervalSince1970, decimals: 3)
        switch event {
        case .listen(let event, let site):
            return "{\"site\":\(JSON.string(site))," + writer.line(for: event).dropFirst()
        case .wake(let site, let time, let until):
            return "{\"site\":\(JSON.string(site)),\"event\":\"wake\",\"time\":\(JSON.number(time)),\"timestamp\":\(timestamp),\"until\":\(JSON.number(until))}"
        case .ignored(let utterance, let site):
            let fields = UtteranceWriter(json: true).jsonLine(utterance, source: "").dropFirst(#"{"file":"","#.count)
            return "{\"site\":\(JSON.string(site)),\"event\":\"ignored\",\"reason\":\"asleep\",\"time\":\(JSON.number(utterance.end)),\"timestamp\":\(timestamp),\(fields)"
        }
    }
}
