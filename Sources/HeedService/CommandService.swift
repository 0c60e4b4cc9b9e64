import Foundation
import Heed
import HeedAudio
import HeedShortcuts
import Synchronization

/// What the service reports, for its owner to print (`heed serve` writes JSON lines).
public enum ServiceEvent: Sendable {
    /// A microphone or hub-site event, as `heed listen` reports them.
    case listen(ListenEvent, site: String)
    /// The wake phrase was heard: commands are heard until `until` (stream time).
    case wake(site: String, time: Double, until: Double)
    /// A command heard while asleep (before any wake phrase, or after its window): ignored.
    case ignored(Utterance, site: String)
}

/// `heed serve`: one recognizer and one decoding thread behind every way audio arrives (the
/// microphone or a paced recording, Wyoming clients, the sites of an MQTT hub), and every way
/// results leave (the owner's `onEvent`, Hermes over MQTT, Wyoming replies).
public final class CommandService: Sendable {
    public struct Settings: Sendable {
        /// Capture from here (nil: no capture, only peers).
        public var microphone: LiveSource?
        public var bufferSeconds = 2.0
        public var wyoming: (host: String, port: Int)?
        public var mqtt: MQTTSettings?
        /// This board's site, in Hermes messages about what its microphone heard.
        public var siteID = "default"
        /// Decode the audio frames every site publishes (`hermes/audioServer/<siteId>/audioFrame`).
        public var hub = false
        /// With a wake phrase, commands are heard only in a window after it.
        public var wake: WakeGate?

        public init() {}
    }

    /// A hub site that sends nothing for this long has its stream ended (its last words decoded).
    public static let siteIdleSeconds = 5.0
    /// More hub sites than this at once are ignored (each holds a stream's memory).
    public static let maxSites = 32

    public let settings: Settings
    private let decoder: SharedDecoder
    private let vocabulary: Locked<Vocabulary>
    private let log: ServiceLog
    private let onEvent: @Sendable (ServiceEvent) -> Void
    private let wyoming: WyomingServer?
    private let mqtt: MQTTClient?
    private let microphoneGate: WakeState
    private let sessionCounter = Atomic<Int>(0)

    /// A hub site's stream.
    private struct Site {
        var stream: SharedDecoder.StreamID
        var format: WAVFormat
        var resampler: Resampler
        var lastFrame: ContinuousClock.Instant
    }
    private let sites = Mutex<[String: Site]>([:])

    /// Sets up every part (a port that cannot be bound, a bad broker address end it here).
    public init(settings: Settings, recognizer: CommandRecognizer, vocabulary: Vocabulary, shortcuts: ShortcutStore? = nil,
                log: ServiceLog, onEvent: @escaping @Sendable (ServiceEvent) -> Void) throws(HeedError) {
        self.settings = settings
        decoder = SharedDecoder(recognizer: recognizer, shortcuts: shortcuts)
        self.vocabulary = Locked(vocabulary)
        self.log = log
        self.onEvent = onEvent
        microphoneGate = WakeState(settings.wake)
        if let address = settings.wyoming {
            let vocabularyNow: @Sendable () -> Vocabulary = { [vocabulary = self.vocabulary] in vocabulary.value }
            wyoming = try WyomingServer(host: address.host, port: address.port, decoder: decoder, vocabulary: vocabularyNow, log: log)
        } else {
            wyoming = nil
        }
        if let mqttSettings = settings.mqtt {
            let client = "heed-\(settings.siteID)-\(getpid())"
            let frames = Locked<(@Sendable (String, [UInt8]) -> Void)?>(nil)
            mqtt = try MQTTClient(settings: mqttSettings, clientID: client, log: log) { topic, payload in
                frames.value?(topic, payload)
            }
            if settings.hub {
                frames.value = { [weak self] topic, payload in self?.audioFrame(topic: topic, payload: payload) }
            }
        } else {
            mqtt = nil
        }
    }

    /// The Wyoming port listened on.
    public var wyomingPort: Int? { wyoming?.port }
    public var decoderProgress: (microphoneSamples: Int, steps: Int) { decoder.progress }

    /// Serves until `shouldStop` (or, with a paced recording, until it ends). `ready` is called
    /// once everything is up.
    public func run(shouldStop: @escaping @Sendable () -> Bool, ready: () -> Void) throws(HeedError) {
        wyoming?.start()
        if let mqtt {
            if settings.hub { mqtt.subscribe(Hermes.audioFrames) }
            mqtt.start()
        }
        defer {
            wyoming?.stop()
            mqtt?.stop()
        }
        var announced = false
        let idleChecker = Thread { [self] in
            while !shouldStop() {
                Thread.sleep(forTimeInterval: 0.5)
                endIdleSites()
            }
        }
        if settings.hub { idleChecker.start() }
        if settings.microphone == nil {
            announced = true
            ready()
        }
        try decoder.run(microphone: settings.microphone, bufferSeconds: settings.bufferSeconds, shouldStop: shouldStop, onMicrophone: { event in
            if case .listening = event, !announced {
                announced = true
                ready()
            }
            handle(event, site: settings.siteID, gate: microphoneGate)
        })
    }

    /// Decodes with a new recognizer and vocabulary from the next step on (SIGHUP).
    public func reload(recognizer: CommandRecognizer, vocabulary: Vocabulary) {
        self.vocabulary.value = vocabulary
        decoder.replace(with: recognizer)
    }

    // MARK: results

    private func nextSession() -> String {
        "heed-\(getpid())-\(sessionCounter.add(1, ordering: .relaxed).newValue)"
    }

    private func handle(_ event: ListenEvent, site: String, gate: WakeState) {
        if case .level = event { return }  // a meter is for a terminal, not a service's output
        guard case .utterance(let utterance) = event else {
            onEvent(.listen(event, site: site))
            return
        }
        switch gate.decide(utterance) {
        case .wake(let until)?:
            onEvent(.wake(site: site, time: utterance.end, until: until))
            if let phrase = settings.wake?.phrase {
                let message = Hermes.wake(phrase: phrase, siteID: site, sessionID: nextSession())
                mqtt?.publish(message.topic, message.payload)
            }
        case .asleep?:
            onEvent(.ignored(utterance, site: site))
        case .pass?, .notUnderstood?, nil:
            onEvent(.listen(event, site: site))
            let session = nextSession()
            for message in Hermes.messages(for: utterance, siteID: site, sessionID: session) {
                mqtt?.publish(message.topic, message.payload)
            }
        }
    }

    // MARK: hub

    /// A WAV chunk from a site (on libmosquitto's thread): queued on that site's stream.
    private func audioFrame(topic: String, payload: [UInt8]) {
        guard let site = Hermes.siteOfAudioFrame(topic) else { return }
        let wav: WAVFile
        do { wav = try WAVFile(data: Data(payload)) } catch {
            log.warning("hub: an audio frame from site '\(site)' is not a WAV chunk (\(error)); dropped")
            return
        }
        let result = sites.withLock { sites -> (SharedDecoder.StreamID, [Int16])? in
            if var known = sites[site], known.format.sampleRate == wav.format.sampleRate {
                known.lastFrame = .now
                let samples = PCM.int16(from: known.resampler.process(wav.samples))
                sites[site] = known
                return (known.stream, samples)
            }
            if let changed = sites.removeValue(forKey: site) { decoder.finish(changed.stream) }
            guard sites.count < Self.maxSites else { return nil }
            let gate = WakeState(settings.wake)
            let stream = decoder.open { [weak self] event in
                guard let self else { return }
                switch event {
                case .event(let event):
                    handle(Listener.listenEvent(event, at: 0, rate: decoder.sampleRate), site: site, gate: gate)
                case .finished(_, let error?):
                    log.warning("hub: site '\(site)': \(error.message)")
                case .finished:
                    break
                }
            }
            var resampler = Resampler(from: wav.format.sampleRate, to: decoder.sampleRate)
            let samples = PCM.int16(from: resampler.process(wav.samples))
            sites[site] = Site(stream: stream, format: wav.format, resampler: resampler, lastFrame: .now)
            log.info("hub: site '\(site)' started streaming (\(wav.format.sampleRate) Hz)")
            return (stream, samples)
        }
        guard let (stream, samples) = result else {
            log.warning("hub: more than \(Self.maxSites) sites at once; '\(site)' ignored")
            return
        }
        decoder.append(samples, to: stream)
    }

    /// Sites that went quiet: their streams end, so their last words are decoded.
    private func endIdleSites() {
        let idle = sites.withLock { sites -> [(String, SharedDecoder.StreamID)] in
            let stale = sites.filter { ContinuousClock.now - $0.value.lastFrame > .seconds(Self.siteIdleSeconds) }
            for (name, _) in stale { sites.removeValue(forKey: name) }
            return stale.map { ($0.key, $0.value.stream) }
        }
        for (name, stream) in idle {
            decoder.finish(stream)
            log.info("hub: site '\(name)' stopped streaming")
        }
    }
}

/// A stream's wake gate (nil: no wake phrase), decided on the decoding thread.
private final class WakeState: Sendable {
    enum Decision { case wake(until: Double), pass, asleep, notUnderstood }
    private let gate: Mutex<WakeGate?>

    init(_ gate: WakeGate?) { self.gate = Mutex(gate) }

    /// nil without a wake phrase: everything passes.
    func decide(_ utterance: Utterance) -> Decision? {
        gate.withLock { gate -> Decision? in
            guard gate != nil else { return nil }
            switch gate!.decide(utterance) {
            case .wake: return .wake(until: gate!.awakeUntil)
            case .pass: return .pass
            case .asleep: return .asleep
            case .notUnderstood: return .notUnderstood
            }
        }
    }
}

/// A value other threads read and replace whole.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    public init(_ value: Value) { mutex = Mutex(value) }
    public var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
}
