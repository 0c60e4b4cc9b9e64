import Foundation
import Heed
import HeedYAML

/// `heed serve`'s settings: one YAML file (`/etc/heed/heed.yml`, or `--config FILE`), the same
/// names as the command-line flags, which override it. Paths are relative to the file.
///
/// ```yaml
/// device: plughw:1,0
/// contexts: [contexts/coffee_maker.yaml]
/// builtins: true
/// sensitivity: 0.4
/// wake: hey barista
/// wyoming: tcp://0.0.0.0:10300
/// mqtt: mqtt://localhost:1883
/// site-id: kitchen
/// ```
public struct ServiceConfiguration: Equatable, Sendable {
    public static let systemPath = "/etc/heed/heed.yml"

    /// ALSA capture device.
    public var device: String?
    /// Play this recording in real time instead of capturing.
    public var input: String?
    /// Capture at all (off: a Wyoming server or MQTT hub only).
    public var capture: Bool?
    public var contexts: [String]?
    public var builtins: Bool?
    public var profile: String?
    public var sensitivity: Double?
    public var wake: String?
    public var wakeWindow: Double?
    public var builtinsAlwaysOn: Bool?
    public var wyoming: String?
    public var mqtt: String?
    public var siteID: String?
    public var hub: Bool?
    public var mqttUsername: String?
    public var mqttPassword: String?
    public var mqttCAFile: String?
    public var mqttCAPath: String?
    public var mqttCert: String?
    public var mqttKey: String?
    public var mqttInsecure: Bool?
    public var stateDir: String?

    public init() {}

    /// The keys a file may have, as they are spelled in it.
    public static let keys = ["device", "input", "capture", "contexts", "builtins", "profile", "sensitivity", "wake", "wake-window",
                              "builtins-always-on", "wyoming", "mqtt", "site-id", "hub", "mqtt-username", "mqtt-password",
                              "mqtt-cafile", "mqtt-capath", "mqtt-cert", "mqtt-key", "mqtt-insecure", "state-dir"]

    /// Reads a configuration file; anything it does not understand is an error (fail closed).
    public init(contentsOf url: URL) throws(HeedError) {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw HeedError(.cannotOpen, "\(url.path): cannot be read")
        }
        try self.init(yaml: text, path: url.path, relativeTo: url.deletingLastPathComponent())
    }

    public init(yaml text: String, path file: String, relativeTo directory: URL) throws(HeedError) {
        func problem(_ message: String) -> HeedError { HeedError(.configuration, "\(file): \(message)") }
        let node: Any?
        do { node = try BoundedYAML.load(text) } catch {
            throw problem("not valid YAML (\(String(describing: error).split(separator: "\n").first ?? ""))")
        }
        guard let node else { return }
        guard let fields = node as? [String: Any] else { throw problem("expected a mapping of settings (\(Self.keys.joined(separator: ", ")))") }
        for key in fields.keys.sorted() where !Self.keys.contains(key) {
            throw problem("unknown setting '\(key)' (expected \(Self.keys.joined(separator: ", ")))")
        }
        func string(_ key: String) throws(HeedError) -> String? {
            guard let value = fields[key] else { return nil }
            if let text = value as? String { return text }
            if let number = value as? NSNumber, !(value is Bool) { return number.stringValue }
            throw problem("\(key) must be text")
        }
        func resolved(_ path: String) -> String { path.hasPrefix("/") ? path : directory.appendingPathComponent(path).path }
        func path(_ key: String) throws(HeedError) -> String? { try string(key).map(resolved) }
        func bool(_ key: String) throws(HeedError) -> Bool? {
            guard let value = fields[key] else { return nil }
            guard let flag = value as? Bool else { throw problem("\(key) must be true or false") }
            return flag
        }
        func number(_ key: String, in range: ClosedRange<Double>) throws(HeedError) -> Double? {
            guard let value = fields[key] else { return nil }
            guard !(value is Bool), let number = (value as? NSNumber)?.doubleValue, range.contains(number) else {
                throw problem("\(key) must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        device = try string("device")
        input = try path("input")
        capture = try bool("capture")
        if let list = fields["contexts"] {
            guard let items = list as? [Any], items.allSatisfy({ $0 is String }) else { throw problem("contexts must be a list of files") }
            contexts = (items as! [String]).map(resolved)
        }
        builtins = try bool("builtins")
        profile = try path("profile")
        sensitivity = try number("sensitivity", in: 0...1)
        wake = try string("wake")
        if let wake, Context.words(wake).isEmpty { throw problem("wake must have at least one word") }
        wakeWindow = try number("wake-window", in: 1...120)
        builtinsAlwaysOn = try bool("builtins-always-on")
        wyoming = try string("wyoming")
        mqtt = try string("mqtt")
        siteID = try string("site-id")
        hub = try bool("hub")
        mqttUsername = try string("mqtt-username")
        mqttPassword = try string("mqtt-password")
        mqttCAFile = try path("mqtt-cafile")
        mqttCAPath = try path("mqtt-capath")
        mqttCert = try path("mqtt-cert")
        mqttKey = try path("mqtt-key")
        mqttInsecure = try bool("mqtt-insecure")
        stateDir = try path("state-dir")
    }

    /// `tcp://HOST:PORT` (or `HOST:PORT`, or `tcp://HOST`: port 10300).
    public static func wyomingAddress(_ text: String) throws(HeedError) -> (host: String, port: Int) {
        let bare = text.hasPrefix("tcp://") ? String(text.dropFirst(6)) : text
        guard !bare.contains("://") else { throw HeedError(.configuration, "'\(text)' is not a Wyoming address (tcp://HOST:PORT)") }
        let parts = bare.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty else { throw HeedError(.configuration, "'\(text)' is not a Wyoming address (tcp://HOST:PORT)") }
        guard parts.count == 2 else { return (String(parts[0]), WyomingServer.defaultPort) }
        guard let port = Int(parts[1]), (0...65535).contains(port) else { throw HeedError(.configuration, "'\(text)': the port must be 0-65535") }
        return (String(parts[0]), port)
    }
}
