import Foundation
import HeedTestSupport
import Testing

/// `heed serve --mqtt` against a real Mosquitto (Debian's) on a loopback port, with paho-mqtt
/// peers: a board publishing what it hears, a hub decoding two satellites, a broker that restarts.
@Suite(.timeLimit(.minutes(40)), .serialized) struct HermesServiceTests {
    static let kitchen = Fixtures.root.appendingPathComponent("Tests/Golden/real-coffee/0075d273-51bb-47cb-b323-4437bd0de029.wav")
    static let workshop = Fixtures.root.appendingPathComponent("Tests/Golden/real-coffee/2630f6ea-dcdb-44d0-a045-b564d346f3d0.wav")
    static let peer = Fixtures.root.appendingPathComponent("Tests/HeedCLITests/Resources/mqtt_client.py").path
    static var mosquittoAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") }

    /// Mosquitto on `port`, loopback only.
    static func broker(port: Int) throws -> BackgroundProcess {
        let configuration = try Fixtures.temporaryDirectory().appendingPathComponent("mosquitto.conf")
        try "listener \(port) 127.0.0.1\nallow_anonymous true\n".write(to: configuration, atomically: true, encoding: .utf8)
        let broker = try BackgroundProcess(["-c", configuration.path], executable: "/usr/sbin/mosquitto")
        #expect(broker.waitForLine(containing: "running", inStderr: true, timeout: 10) != nil, "\(broker.stderr)")
        return broker
    }

    /// A subscriber printing every message on `topics` for `seconds`.
    static func listen(port: Int, seconds: Double, _ topics: [String]) throws -> BackgroundProcess {
        let listener = try BackgroundProcess([peer, String(port), "listen", String(seconds)] + topics, executable: TestPython.executable)
        #expect(listener.waitForLine(containing: "$connected", timeout: 10) != nil, "\(listener.stderr)")
        return listener
    }

    static func messages(_ listener: BackgroundProcess) -> [(topic: String, payload: [String: Any])] {
        listener.stdout.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let topic = object["topic"] as? String, let payload = object["payload"] as? [String: Any] else { return nil }
            return (topic, payload)
        }
    }

    static func satellite(port: Int, site: String, _ file: URL) throws -> BackgroundProcess {
        try BackgroundProcess([peer, String(port), "satellite", site, file.path], executable: TestPython.executable)
    }

    @Test func aBoardPublishesWhatItHearsAsHermes() throws {
        guard TestPython.available, Self.mosquittoAvailable else { print("skipped: needs mosquitto and .build/test-venv"); return }
        let port = TestPython.freePort()
        let broker = try Self.broker(port: port)
        defer { broker.stop(signal: SIGKILL) }
        let listener = try Self.listen(port: port, seconds: 30, ["hermes/#"])
        let serve = try CLI.run(["serve", "--no-builtins", "--context", "Models/contexts/coffee_maker.yaml", "--input", Self.kitchen.path,
                                 "--mqtt", "mqtt://127.0.0.1:\(port)", "--site-id", "kitchen"])
        #expect(serve.status == 0, "\(serve.stderr)")
        Thread.sleep(forTimeInterval: 0.5)
        listener.stop(signal: SIGKILL)
        let heard = Self.messages(listener)
        #expect(heard.map(\.topic) == ["hermes/asr/textCaptured", "hermes/intent/orderDrink"], "\(listener.stdout)")
        let intent = try #require(heard.last?.payload)
        #expect(intent["siteId"] as? String == "kitchen")
        #expect(intent["input"] as? String == "can i have a light roast twelve ounce coffee")
        #expect((intent["intent"] as? [String: Any])?["intentName"] as? String == "orderDrink")
        let slots = (intent["slots"] as? [[String: Any]] ?? []).map { "\($0["slotName"]!)=\($0["rawValue"]!)" }
        #expect(slots == ["coffeeDrink=coffee", "roast=light roast", "size=twelve ounce"])
        #expect(heard.first?.payload["sessionId"] as? String == intent["sessionId"] as? String)
    }

    @Test func twoSitesShareOneHub() throws {
        guard TestPython.available, Self.mosquittoAvailable else { print("skipped: needs mosquitto and .build/test-venv"); return }
        let port = TestPython.freePort()
        let broker = try Self.broker(port: port)
        defer { broker.stop(signal: SIGKILL) }
        let hub = try BackgroundProcess(["serve", "--no-builtins", "--context", "Models/contexts/coffee_maker.yaml",
                                         "--mqtt", "mqtt://127.0.0.1:\(port)", "--hub"])
        defer { hub.stop() }
        #expect(hub.waitForLine(containing: "mqtt: connected", inStderr: true, timeout: 20) != nil, "\(hub.stderr)")
        let listener = try Self.listen(port: port, seconds: 40, ["hermes/intent/#", "hermes/nlu/#"])
        let sites = [try Self.satellite(port: port, site: "kitchen", Self.kitchen), try Self.satellite(port: port, site: "workshop", Self.workshop)]
        for site in sites { #expect(site.wait() == 0, "\(site.stderr)") }
        #expect(hub.waitForLine(containing: "\"site\":\"workshop\",\"event\":\"intent\"", timeout: 20) != nil, "\(hub.stdout)")
        #expect(hub.waitForLine(containing: "\"site\":\"kitchen\",\"event\":\"intent\"", timeout: 20) != nil, "\(hub.stdout)")
        Thread.sleep(forTimeInterval: 0.5)
        listener.stop(signal: SIGKILL)
        let intents = Self.messages(listener).filter { $0.topic == "hermes/intent/orderDrink" }
        let bySite = Dictionary(intents.map { ($0.payload["siteId"] as? String ?? "", $0.payload["input"] as? String ?? "") }) { first, _ in first }
        #expect(intents.count == 2, "\(listener.stdout)")
        #expect(bySite["kitchen"] == "can i have a light roast twelve ounce coffee")
        #expect(bySite["workshop"] == "brew a sixteen ounce mocha with skim milk and sweetener")
        #expect(hub.stderr.contains("hub: site 'kitchen' started streaming"))
    }

    @Test func theHubWaitsForTheBrokerAndReconnectsAfterItRestarts() throws {
        guard TestPython.available, Self.mosquittoAvailable else { print("skipped: needs mosquitto and .build/test-venv"); return }
        let port = TestPython.freePort()
        // No broker yet: the service starts anyway and keeps trying.
        let hub = try BackgroundProcess(["serve", "--no-builtins", "--context", "Models/contexts/coffee_maker.yaml",
                                         "--mqtt", "mqtt://127.0.0.1:\(port)", "--hub"])
        defer { hub.stop() }
        #expect(hub.waitForLine(containing: "ready", inStderr: true) != nil, "\(hub.stderr)")
        var broker = try Self.broker(port: port)
        #expect(hub.waitForLine(containing: "mqtt: connected", inStderr: true, timeout: 40) != nil, "\(hub.stderr)")
        // The broker goes down and comes back.
        broker.stop(signal: SIGKILL)
        #expect(hub.waitForLine(containing: "lost the broker", inStderr: true, timeout: 20)?.hasPrefix("<4>") == true, "\(hub.stderr)")
        broker = try Self.broker(port: port)
        defer { broker.stop(signal: SIGKILL) }
        #expect(hub.waitForLine(containing: "mqtt: reconnected", inStderr: true, timeout: 40) != nil, "\(hub.stderr)")
        // It subscribed again: a satellite is heard.
        let listener = try Self.listen(port: port, seconds: 30, ["hermes/intent/#"])
        #expect(try Self.satellite(port: port, site: "kitchen", Self.kitchen).wait() == 0)
        #expect(hub.waitForLine(containing: "\"site\":\"kitchen\",\"event\":\"intent\"", timeout: 20) != nil, "\(hub.stdout)")
        Thread.sleep(forTimeInterval: 0.5)
        listener.stop(signal: SIGKILL)
        #expect(Self.messages(listener).map(\.topic) == ["hermes/intent/orderDrink"], "\(listener.stdout)")
        #expect(hub.process.isRunning)
    }

    @Test func badAudioFramesAreLoggedAndSkipped() throws {
        guard TestPython.available, Self.mosquittoAvailable else { print("skipped: needs mosquitto and .build/test-venv"); return }
        let port = TestPython.freePort()
        let broker = try Self.broker(port: port)
        defer { broker.stop(signal: SIGKILL) }
        let hub = try BackgroundProcess(["serve", "--mqtt", "mqtt://127.0.0.1:\(port)", "--hub"])
        defer { hub.stop() }
        #expect(hub.waitForLine(containing: "mqtt: connected", inStderr: true, timeout: 20) != nil)
        let publish = try BackgroundProcess([Self.peer, String(port), "publish", "hermes/audioServer/attic/audioFrame", "{not a wav"],
                                            executable: TestPython.executable)
        #expect(publish.wait() == 0)
        #expect(hub.waitForLine(containing: "site 'attic' is not a WAV chunk", inStderr: true, timeout: 10)?.hasPrefix("<4>") == true, "\(hub.stderr)")
        #expect(hub.process.isRunning)
    }

    /// TLS with a CA of the test's own, and a broker that wants a user name and password.
    @Test func tlsAndLogin() throws {
        guard Self.mosquittoAvailable, FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            print("skipped: needs mosquitto and openssl"); return
        }
        let directory = try Fixtures.temporaryDirectory()
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func run(_ executable: String, _ arguments: [String]) throws {
            let process = try BackgroundProcess(arguments, executable: executable)
            #expect(process.wait() == 0, "\(executable) \(arguments): \(process.stderr)")
        }
        try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.crt"), "-days", "2", "-subj", "/CN=heed test CA"])
        try run("/usr/bin/openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"])
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: path("ext"), atomically: true, encoding: .utf8)
        try run("/usr/bin/openssl", ["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"), "-CAcreateserial",
                                     "-out", path("server.crt"), "-days", "2", "-extfile", path("ext")])
        try "".write(toFile: path("passwords"), atomically: true, encoding: .utf8)
        try run("/usr/bin/mosquitto_passwd", ["-b", path("passwords"), "heed", "s3cret"])
        // Run as root, Mosquitto reads these as its own user.
        for file in ["passwords", "server.key"] { chmod(path(file), 0o644) }
        let port = TestPython.freePort()
        try "listener \(port) 127.0.0.1\ncafile \(path("ca.crt"))\ncertfile \(path("server.crt"))\nkeyfile \(path("server.key"))\nallow_anonymous false\npassword_file \(path("passwords"))\n"
            .write(toFile: path("mosquitto.conf"), atomically: true, encoding: .utf8)
        let broker = try BackgroundProcess(["-c", path("mosquitto.conf")], executable: "/usr/sbin/mosquitto")
        defer { broker.stop(signal: SIGKILL) }
        #expect(broker.waitForLine(containing: "running", inStderr: true, timeout: 10) != nil, "\(broker.stderr)")

        let right = try BackgroundProcess(["serve", "--hub", "--mqtt", "mqtts://127.0.0.1:\(port)", "--mqtt-cafile", path("ca.crt"),
                                           "--mqtt-username", "heed", "--mqtt-password", "s3cret"])
        #expect(right.waitForLine(containing: "mqtt: connected", inStderr: true, timeout: 20) != nil, "\(right.stderr)")
        #expect(right.stop() == 0)
        let wrong = try BackgroundProcess(["serve", "--hub", "--mqtt", "mqtts://heed:wrong@127.0.0.1:\(port)", "--mqtt-cafile", path("ca.crt")])
        #expect(wrong.waitForLine(containing: "not authorised", inStderr: true, timeout: 20)?.hasPrefix("<4>") == true, "\(wrong.stderr)")
        #expect(wrong.stop() == 0)
        // Without the test's CA the broker's certificate is not trusted.
        let untrusted = try BackgroundProcess(["serve", "--hub", "--mqtt", "mqtts://heed:s3cret@127.0.0.1:\(port)"])
        #expect(untrusted.waitForLine(containing: "certificate verify failed", inStderr: true, timeout: 20)?.hasPrefix("<4>") == true, "\(untrusted.stderr)")
        #expect(!untrusted.stderr.contains("mqtt: connected"))
        #expect(untrusted.stop() == 0)
    }
}
