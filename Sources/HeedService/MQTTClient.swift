import CMosquitto
import Foundation
import Heed
import Synchronization

/// Where and how to reach an MQTT broker: the options Mosquitto's own clients take.
public struct MQTTSettings: Sendable, Equatable {
    public var host = "localhost"
    public var port = 1883
    public var username: String?
    public var password: String?
    /// TLS: the CA file (as `mosquitto_sub --cafile`), or a directory of them (`--capath`).
    public var caFile: String?
    public var caPath: String?
    public var certFile: String?
    public var keyFile: String?
    /// Do not check the broker's host name against its certificate (`--insecure`).
    public var insecure = false

    public init() {}

    /// `mqtt://HOST:PORT` or `mqtts://HOST:PORT` (TLS, port 8883 by default; the system's CA
    /// certificates unless `caFile` or `caPath` is set).
    public init(url: String) throws(HeedError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme, ["mqtt", "mqtts"].contains(scheme),
              let host = components.host, !host.isEmpty else {
            throw HeedError(.configuration, "'\(url)' is not an MQTT address (mqtt://HOST:PORT or mqtts://HOST:PORT)")
        }
        self.host = host
        port = components.port ?? (scheme == "mqtts" ? 8883 : 1883)
        username = components.user
        password = components.password
        if scheme == "mqtts" { caPath = "/etc/ssl/certs" }
    }

    var usesTLS: Bool { caFile != nil || caPath != nil }
}

/// An MQTT connection through Debian's libmosquitto: its own network thread, reconnecting
/// (1 s, backing off to 30 s) whenever the broker goes away. Subscriptions are renewed on each
/// connect. The C calls live here only.
public final class MQTTClient: @unchecked Sendable {
    // @unchecked: libmosquitto is thread-safe for publish/subscribe with its threaded loop; the
    // Swift state is behind `state`.
    private let handle: OpaquePointer
    private let settings: MQTTSettings
    private let log: ServiceLog
    private let onMessage: @Sendable (String, [UInt8]) -> Void
    private struct State { var subscriptions: [String] = []; var connected = false; var everConnected = false; var lastError: String? }
    private let state = Mutex(State())
    private static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    public init(settings: MQTTSettings, clientID: String, log: ServiceLog,
                onMessage: @escaping @Sendable (String, [UInt8]) -> Void = { _, _ in }) throws(HeedError) {
        guard Self.libraryReady, let handle = mosquitto_new(clientID, true, nil) else {
            throw HeedError(.internalFailure, "libmosquitto could not make a client")
        }
        self.handle = handle
        self.settings = settings
        self.log = log
        self.onMessage = onMessage
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        if let username = settings.username {
            try check(mosquitto_username_pw_set(handle, username, settings.password), "username and password")
        }
        if settings.usesTLS {
            try check(mosquitto_tls_set(handle, settings.caFile, settings.caPath, settings.certFile, settings.keyFile, nil), "TLS settings")
            if settings.insecure { mosquitto_tls_insecure_set(handle, true) }
        }
        mosquitto_reconnect_delay_set(handle, 1, 30, true)
        mosquitto_connect_callback_set(handle) { _, object, code in
            MQTTClient.from(object).connected(code)
        }
        mosquitto_disconnect_callback_set(handle) { _, object, code in
            MQTTClient.from(object).disconnected(code)
        }
        // libmosquitto's own errors (a TLS handshake that fails, say), once each until they change.
        mosquitto_log_callback_set(handle) { _, object, level, text in
            guard level & Int32(MOSQ_LOG_ERR) != 0, let text else { return }
            MQTTClient.from(object).libraryError(String(cString: text))
        }
        mosquitto_message_callback_set(handle) { _, object, message in
            guard let message = message?.pointee, let topic = message.topic else { return }
            let payload = message.payload.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen))) } ?? []
            MQTTClient.from(object).onMessage(String(cString: topic), payload)
        }
    }

    deinit { mosquitto_destroy(handle) }

    private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTClient {
        Unmanaged<MQTTClient>.fromOpaque(object!).takeUnretainedValue()
    }

    private func check(_ code: Int32, _ what: String) throws(HeedError) {
        guard code != MOSQ_ERR_SUCCESS.rawValue else { return }
        throw HeedError(.configuration, "MQTT \(what): \(String(cString: mosquitto_strerror(code)))")
    }

    /// Connects and starts the network thread, on a thread of its own: a broker that is not up
    /// yet is tried again (1 s, backing off to 30 s) until it is. libmosquitto's own loop
    /// reconnects only once a first connection was made.
    public func start() {
        let thread = Thread { [self] in
            var delay = 1.0, reported = false
            while !stopping.load(ordering: .relaxed) {
                let code = mosquitto_connect_async(handle, settings.host, Int32(settings.port), 30)
                if code == MOSQ_ERR_SUCCESS.rawValue {
                    let started = mosquitto_loop_start(handle)
                    if started != MOSQ_ERR_SUCCESS.rawValue { log.error("mqtt: no network thread: \(String(cString: mosquitto_strerror(started)))") }
                    return
                }
                if !reported {
                    log.warning("mqtt: cannot reach \(settings.host):\(settings.port) yet (\(String(cString: mosquitto_strerror(code)))); trying again")
                    reported = true
                }
                let until = Date().addingTimeInterval(delay)
                while Date() < until && !stopping.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: 0.1) }
                delay = min(30, delay * 2)
            }
        }
        thread.name = "heed-mqtt-connect"
        thread.start()
    }

    private let stopping = Atomic<Bool>(false)

    /// Subscribes now (when connected) and after every reconnect.
    public func subscribe(_ topic: String) {
        let connected = state.withLock { state in
            state.subscriptions.append(topic)
            return state.connected
        }
        if connected { mosquitto_subscribe(handle, nil, topic, 0) }
    }

    /// Publishes at QoS 0; while the broker is away the message is dropped (and says so).
    @discardableResult
    public func publish(_ topic: String, _ payload: [UInt8]) -> Bool {
        let code = payload.withUnsafeBytes { mosquitto_publish(handle, nil, topic, Int32($0.count), $0.baseAddress, 0, false) }
        if code != MOSQ_ERR_SUCCESS.rawValue {
            log.warning("mqtt: \(topic) not published: \(String(cString: mosquitto_strerror(code)))")
            return false
        }
        return true
    }

    public var isConnected: Bool { state.withLock { $0.connected } }

    public func stop() {
        stopping.store(true, ordering: .relaxed)
        mosquitto_disconnect(handle)
        // Forced: a loop waiting out its reconnect delay (up to 30 s) would hold up stopping.
        mosquitto_loop_stop(handle, true)
    }

    private func connected(_ code: Int32) {
        guard code == 0 else {
            log.warning("mqtt: \(settings.host):\(settings.port) refused the connection: \(String(cString: mosquitto_connack_string(code)))")
            return
        }
        let (topics, again) = state.withLock { state in
            state.connected = true
            state.lastError = nil
            defer { state.everConnected = true }
            return (state.subscriptions, state.everConnected)
        }
        log.info("mqtt: \(again ? "reconnected" : "connected") to \(settings.host):\(settings.port)")
        for topic in topics { mosquitto_subscribe(handle, nil, topic, 0) }
    }

    private func libraryError(_ text: String) {
        let fresh = state.withLock { state in
            defer { state.lastError = text }
            return state.lastError != text
        }
        if fresh { log.warning("mqtt: \(text)") }
    }

    private func disconnected(_ code: Int32) {
        state.withLock { $0.connected = false }
        if code != 0 { log.warning("mqtt: lost the broker (\(String(cString: mosquitto_strerror(code)))); reconnecting") }
    }
}
