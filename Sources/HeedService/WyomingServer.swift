import Foundation
import Heed
import HeedAudio
import Synchronization

/// Heed as a Wyoming speech-to-text and intent service, the way Home Assistant reaches local
/// speech services (`heed serve --wyoming tcp://HOST:PORT`).
///
/// - `describe` → `info`: an `asr` program and an `intent` program whose models are the contexts.
/// - `transcribe`?, `audio-start`, `audio-chunk`…, `audio-stop` → `transcript`: the audio,
///   in any rate, width and channel count, goes through Heed's own endpointing and detector; the
///   transcript is what was understood (empty when nothing was).
/// - `transcript` or `recognize` with text → `intent{name, entities, text}` or `not-recognized`.
/// - `ping` → `pong`. Other events are ignored.
///
/// Each client has its own thread and a bounded share of memory (`WyomingParser`'s bounds and
/// `SharedDecoder`'s queue); a client that sends garbage gets an `error` event, one that
/// vanishes mid-stream only loses its own stream.
public final class WyomingServer: Sendable {
    public static let defaultPort = 10300
    /// More clients than this at once are refused with an `error` event.
    public static let maxClients = 16

    private let server: TCPServer
    private let decoder: SharedDecoder
    private let vocabulary: @Sendable () -> Vocabulary
    private let log: ServiceLog

    /// The port listened on (the one asked for, or the one chosen for port 0).
    public var port: Int { server.port }

    public init(host: String, port: Int, decoder: SharedDecoder, vocabulary: @escaping @Sendable () -> Vocabulary, log: ServiceLog) throws(HeedError) {
        server = try TCPServer(host: host, port: port, maxConnections: Self.maxClients)
        self.decoder = decoder
        self.vocabulary = vocabulary
        self.log = log
    }

    public func start() {
        server.start(handle: { [self] connection in serve(connection) }, refuse: { [log] connection in
            log.warning("wyoming: more than \(Self.maxClients) clients at once; one refused")
            connection.write(Self.error("too many clients; try again later", code: "busy").encoded())
        })
    }

    public func stop() { server.stop() }

    static func error(_ text: String, code: String) -> WyomingEvent { WyomingEvent("error", ["text": text, "code": code]) }

    /// One client, until it goes away.
    private func serve(_ connection: TCPConnection) {
        var parser = WyomingParser()
        let session = AudioSession(decoder: decoder)
        defer { session.abandon(log: log) }
        while let bytes = connection.read() {
            parser.push(bytes)
            while true {
                let event: WyomingEvent
                do {
                    guard let next = try parser.next() else { break }
                    event = next
                } catch .tooLarge(let why) {
                    log.warning("wyoming: \(why); closing the connection")
                    connection.write(Self.error(why, code: "too-large").encoded())
                    return
                } catch {
                    log.warning("wyoming: \(error); skipped")
                    connection.write(Self.error(error.description, code: "bad-event").encoded())
                    continue
                }
                for reply in respond(to: event, session: session) {
                    guard connection.write(reply.encoded()) else { return }
                }
            }
        }
    }

    private func respond(to event: WyomingEvent, session: AudioSession) -> [WyomingEvent] {
        switch event.type {
        case "describe":
            return [Self.info(vocabulary())]
        case "ping":
            return [WyomingEvent("pong", event.string("text").map { ["text": $0] } ?? [:])]
        case "transcribe":
            session.reset()
            return []
        case "audio-start", "audio-chunk":
            do {
                try session.audio(event, starting: event.type == "audio-start")
                return []
            } catch {
                log.warning("wyoming: \(error.message)")
                return [Self.error(error.message, code: "bad-audio")]
            }
        case "audio-stop":
            let text = session.stop()
            log.info("wyoming: transcript \"\(text)\"")
            return [WyomingEvent("transcript", ["text": text, "language": "en"])]
        case "transcript", "recognize":
            let text = event.string("text") ?? ""
            guard let intent = vocabulary().match(Context.words(text)) else {
                return [WyomingEvent("not-recognized", ["text": text])]
            }
            let entities = intent.slots.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] }
            return [WyomingEvent("intent", ["name": intent.name, "entities": entities, "text": text])]
        default:
            return []  // the protocol says to ignore what is not understood
        }
    }

    /// The `info` event: what Heed offers. The intent program has a model per context (and one
    /// for the built-in commands), each listing its intents.
    static func info(_ vocabulary: Vocabulary) -> WyomingEvent {
        let heed: [String: Any] = ["name": "Heed", "url": ""]
        let sphinx: [String: Any] = ["name": "CMU Sphinx", "url": "https://cmusphinx.github.io"]
        func artifact(_ name: String, _ description: String, _ attribution: [String: Any]) -> [String: Any] {
            ["name": name, "description": description, "attribution": attribution, "installed": true, "version": "1.0"]
        }
        var asrModel = artifact("en-us", "PocketSphinx en-US acoustic model, decoded against the active commands", sphinx)
        asrModel["languages"] = ["en"]
        var asr = artifact("heed", "Offline voice commands: PocketSphinx against the minimal word graph of the commands, with rejection", heed)
        asr["models"] = [asrModel]
        asr["supports_transcript_streaming"] = false
        // Heed's endpointer segments the audio, but the transcript is sent at audio-stop.
        asr["requires_external_vad"] = true
        var models: [[String: Any]] = []
        for (name, intents) in vocabulary.intentNamesBySource {
            var model = artifact(name, "intents: " + intents.joined(separator: ", "), heed)
            model["languages"] = ["en"]
            models.append(model)
        }
        var intent = artifact("heed-intents", "The intents of Heed's commands and contexts", heed)
        intent["models"] = models
        return WyomingEvent("info", ["asr": [asr], "intent": [intent], "tts": [], "handle": [], "wake": [], "mic": [], "snd": []])
    }
}

/// The audio of one transcription: announced by `audio-start` (or the first chunk), queued
/// on the shared decoder, ended by `audio-stop`.
private final class AudioSession: Sendable {
    private let decoder: SharedDecoder
    private struct State {
        var stream: SharedDecoder.StreamID?
        var converter: PCMConverter?
        var heard: [String] = []
        var finished = false
        /// Which transcription this is: a stream's events count only for the one that opened it.
        var generation = 0
        /// Signalled when this stream's last event has been decoded.
        let done = DispatchSemaphore(value: 0)
    }
    private let state = Mutex(State())

    init(decoder: SharedDecoder) { self.decoder = decoder }

    func reset() {
        let open = state.withLock { state in
            defer { state = State(generation: state.generation + 1) }
            return state.stream
        }
        if let open { decoder.close(open) }
    }

    /// Queues an `audio-start` or `audio-chunk`. A chunk in another format than the one
    /// announced is refused (its samples would be misread).
    func audio(_ event: WyomingEvent, starting: Bool) throws(HeedError) {
        let format: PCMConverter.Format
        do {
            format = try PCMConverter.Format(rate: event.int("rate") ?? 16000, width: event.int("width") ?? 2, channels: event.int("channels") ?? 1)
        } catch { throw HeedError(.badInput, "\(event.type): \(error)") }
        let current = state.withLock { $0.converter?.format }
        if starting || current == nil {
            reset()
            let generation = state.withLock { $0.generation }
            let id = decoder.open { [self] event in heard(event, generation: generation) }
            state.withLock { state in
                state.stream = id
                state.converter = PCMConverter(from: format, to: decoder.sampleRate)
            }
        } else if current != format {
            throw HeedError(.badInput, "audio-chunk is \(format), but audio-start announced \(current!); chunk dropped")
        }
        guard !event.payload.isEmpty else { return }
        let (id, samples) = state.withLock { state in (state.stream, state.converter?.convert(event.payload) ?? []) }
        if let id { decoder.append(samples, to: id) }
    }

    /// Ends the audio and waits for what it says.
    func stop() -> String {
        let (id, rest, done) = state.withLock { state in (state.stream, state.converter?.finish() ?? [], state.done) }
        guard let id else { return "" }
        decoder.append(rest, to: id)
        decoder.finish(id)
        // The decoder serves every stream in turn; a minute is far more than one utterance takes.
        if done.wait(timeout: .now() + 60) == .timedOut { decoder.close(id) }
        return state.withLock { state in
            defer { state = State(generation: state.generation + 1) }
            return state.heard.joined(separator: " ")
        }
    }

    /// The client went away: its stream is dropped.
    func abandon(log: ServiceLog) {
        let open = state.withLock { state in state.finished ? nil : state.stream }
        if let open {
            decoder.close(open)
            log.warning("wyoming: a client went away mid-stream; its audio was dropped")
        }
    }

    /// On the decoding thread.
    private func heard(_ event: SharedDecoder.StreamEvent, generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            switch event {
            case .event(.utterance(let utterance)) where utterance.understood:
                state.heard.append(utterance.transcript)
            case .finished:
                state.finished = true
                state.done.signal()
            default:
                break
            }
        }
    }
}
