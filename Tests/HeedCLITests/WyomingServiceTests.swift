import Foundation
import HeedTestSupport
import Testing

/// `heed serve --wyoming` with the PyPI `wyoming` package (1.10) as the client, as Home
/// Assistant talks to it; and with raw sockets for what a broken client sends.
@Suite(.timeLimit(.minutes(40)), .serialized) struct WyomingServiceTests {
    static let requests = ["0075d273-51bb-47cb-b323-4437bd0de029", "2630f6ea-dcdb-44d0-a045-b564d346f3d0"]
        .map { Fixtures.root.appendingPathComponent("Tests/Golden/real-coffee/\($0).wav") }
    static let client = Fixtures.root.appendingPathComponent("Tests/HeedCLITests/Resources/wyoming_client.py").path

    /// A running server on a free port (port 0; the ready line says which).
    final class Server {
        let process: BackgroundProcess
        let port: Int
        init() throws {
            process = try BackgroundProcess(["serve", "--no-builtins", "--context", "Models/contexts/coffee_maker.yaml", "--wyoming", "tcp://127.0.0.1:0"])
            let ready = try #require(process.waitForLine(containing: "ready", inStderr: true), "\(process.stderr)")
            port = try #require(Int(ready.split(separator: ":").last!.prefix { $0.isNumber }))
        }
        deinit { process.stop() }
    }

    func client(_ port: Int, _ arguments: [String]) throws -> [[String: Any]] {
        let result = try CLI.run([Self.client, String(port)] + arguments, executable: TestPython.executable)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func converted(_ file: URL, _ soxArguments: [String]) throws -> URL {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent(file.lastPathComponent)
        let sox = try BackgroundProcess([file.path] + soxArguments.prefix(while: { $0 != "--" }) + [out.path], executable: "/usr/bin/sox")
        #expect(sox.wait() == 0, "\(sox.stderr)")
        return out
    }

    /// What `heed recognize` makes of the same file: the answer a Wyoming client should get.
    func recognized(_ file: URL) throws -> [String: Any] {
        let result = try CLI.run(["recognize", "--json", "--no-builtins", "--context", "Models/contexts/coffee_maker.yaml", file.path])
        return try #require(result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.first)
    }

    @Test func describeListsTheSpeechAndIntentPrograms() throws {
        guard TestPython.available else { print(TestPython.missing); return }
        let server = try Server()
        let info = try #require(try client(server.port, ["describe"]).first?["data"] as? [String: Any])
        let asr = try #require((info["asr"] as? [[String: Any]])?.first)
        #expect(asr["name"] as? String == "heed")
        #expect(((asr["models"] as? [[String: Any]])?.first?["languages"] as? [String]) == ["en"])
        let intent = try #require((info["intent"] as? [[String: Any]])?.first)
        let models = try #require(intent["models"] as? [[String: Any]])
        #expect(models.map { $0["name"] as? String } == ["coffee_maker"])
        #expect((models.first?["description"] as? String)?.contains("orderDrink") == true)
        #expect(try client(server.port, ["ping"]).first?["type"] as? String == "pong")
    }

    @Test func aSpokenRequestBecomesATranscriptAndAnIntentInAnyAudioFormat() throws {
        guard TestPython.available else { print(TestPython.missing); return }
        let server = try Server()
        for file in Self.requests {
            let expected = try recognized(file)
            for format in [[], ["-r", "44100", "-c", "2"], ["-r", "8000", "-b", "8", "-e", "unsigned-integer"]] {
                let input = format.isEmpty ? file : try converted(file, format)
                let replies = try client(server.port, ["transcribe", input.path])
                let transcript = try #require(replies.first { $0["type"] as? String == "transcript" }?["data"] as? [String: Any])
                #expect(transcript["text"] as? String == expected["transcript"] as? String, "\(format)")
                let intent = try #require(replies.first { $0["type"] as? String == "intent" }?["data"] as? [String: Any], "\(replies)")
                #expect(intent["name"] as? String == expected["intent"] as? String)
                let entities = (intent["entities"] as? [[String: Any]] ?? []).map { "\($0["name"]!)=\($0["value"]!)" }.sorted()
                #expect(entities == (expected["slots"] as? [String: String] ?? [:]).map { "\($0.key)=\($0.value)" }.sorted(), "\(format)")
            }
        }
    }

    @Test func textBecomesAnIntentOrNotRecognized() throws {
        guard TestPython.available else { print(TestPython.missing); return }
        let server = try Server()
        let intent = try #require(try client(server.port, ["recognize", "can i have a large latte"]).first)
        #expect(intent["type"] as? String == "intent")
        #expect((intent["data"] as? [String: Any])?["name"] as? String == "orderDrink")
        let none = try #require(try client(server.port, ["recognize", "turn on the lights"]).first)
        #expect(none["type"] as? String == "not-recognized")
    }

    @Test func severalClientsAtOnce() throws {
        guard TestPython.available else { print(TestPython.missing); return }
        let server = try Server()
        let expected = try Self.requests.map { try #require(try recognized($0)["transcript"] as? String) }
        // Four clients stream at once (in 20 ms chunks, as a satellite does); each must get its own words.
        let results = try CLI.runConcurrently(zip(Self.requests, expected).flatMap { [$0, $0] }.map { file, words in
            "'\(TestPython.executable)' '\(Self.client)' \(server.port) transcribe '\(file.path)' 20 | head -1 | grep -qF '\"text\": \"\(words)\"'"
        }, environment: [:])
        #expect(results.count == 4 && results.allSatisfy { $0.status == 0 }, "\(results)")
    }

    /// Raw bytes to the server; what it answered before it closed (or `wait` seconds passed).
    func send(_ port: Int, _ bytes: [UInt8], wait: Double = 1, closeEarly: Bool = false) throws -> String {
        let script = """
            import socket, sys, time
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.settimeout(\(wait))
            s.sendall(bytes.fromhex(sys.argv[2]))
            if \(closeEarly ? "True" : "False"):
                s.close(); sys.exit(0)
            out = b""
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk: out += b"<closed>"; break
                    out += chunk
            except socket.timeout:
                pass
            sys.stdout.write(out.decode(errors="replace"))
            """
        let result = try CLI.run(["-c", script, String(port), bytes.map { String(format: "%02x", $0) }.joined()], executable: "/usr/bin/python3")
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func brokenClientsGetAnErrorAndTheServiceKeepsServing() throws {
        guard TestPython.available else { print(TestPython.missing); return }
        let server = try Server()
        func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }
        // Bad JSON: an error, and the next event on the same connection is answered.
        let bad = try send(server.port, line("this is not json") + line(#"{"type":"ping"}"#))
        #expect(bad.contains(#""code":"bad-event""#) && bad.contains(#""type":"pong""#), "\(bad)")
        // A payload too large to hold: an error, and the connection is closed.
        let huge = try send(server.port, line(#"{"type":"audio-chunk","payload_length":4000000000}"#))
        #expect(huge.contains(#""code":"too-large""#) && huge.hasSuffix("<closed>"), "\(huge)")
        // Audio in another format than announced: refused, not misread.
        let start = line(#"{"type":"audio-start","data":{"rate":16000,"width":2,"channels":1}}"#)
        let chunk = line(#"{"type":"audio-chunk","data":{"rate":48000,"width":2,"channels":2},"payload_length":4}"#) + [0, 0, 0, 0]
        let mismatched = try send(server.port, start + chunk)
        #expect(mismatched.contains(#""code":"bad-audio""#) && mismatched.contains("48000 Hz"), "\(mismatched)")
        // A client that vanishes mid-stream.
        let audio = try Data(contentsOf: Self.requests[0]).dropFirst(44).prefix(32000)
        _ = try send(server.port, start + line(#"{"type":"audio-chunk","data":{"rate":16000,"width":2,"channels":1},"payload_length":\#(audio.count)}"#) + Array(audio),
                     closeEarly: true)
        #expect(server.process.waitForLine(containing: "went away mid-stream", inStderr: true, timeout: 10)?.hasPrefix("<4>") == true)
        // Still serving, and still right.
        let replies = try client(server.port, ["transcribe", Self.requests[1].path])
        #expect((replies.first?["data"] as? [String: Any])?["text"] as? String == (try recognized(Self.requests[1])["transcript"] as? String))
        #expect(server.process.process.isRunning)
    }
}
