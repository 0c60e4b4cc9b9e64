import Foundation
import HeedService
import Testing

@Suite struct WyomingParserTests {
    @Test func eventsRoundTripInAnyPieces() throws {
        let event = WyomingEvent("audio-chunk", ["rate": 16000, "width": 2, "channels": 1], payload: [1, 2, 3, 4])
        let wire = event.encoded() + WyomingEvent("ping").encoded()
        var parser = WyomingParser()
        var parsed: [WyomingEvent] = []
        for byte in wire {  // one byte at a time: the worst a socket can do
            parser.push([byte])
            while let next = try parser.next() { parsed.append(next) }
        }
        #expect(parsed.map(\.type) == ["audio-chunk", "ping"])
        #expect(parsed[0].int("rate") == 16000)
        #expect(parsed[0].payload == [1, 2, 3, 4])
    }

    @Test func dataInTheHeaderAndAfterItAreMerged() throws {
        var parser = WyomingParser()
        let extra = Data(#"{"text":"a latte"}"#.utf8)
        parser.push(Array(#"{"type":"recognize","data":{"context":1},"data_length":\#(extra.count)}"#.utf8) + [10] + Array(extra))
        let event = try #require(try parser.next())
        #expect(event.string("text") == "a latte")
        #expect(event.int("context") == 1)
    }

    @Test func aBadLineIsSkippedAndTheNextOneRead() throws {
        var parser = WyomingParser()
        parser.push(Array("not json\n[1,2]\n{\"data\":{}}\n{\"type\":\"ping\"}\n".utf8))
        for _ in 0..<3 {
            #expect(throws: WyomingError.self) { _ = try parser.next() }
        }
        #expect(try parser.next()?.type == "ping")
    }

    @Test func whatWouldTakeUnboundedMemoryIsRefused() {
        var parser = WyomingParser()
        parser.push(Array(#"{"type":"audio-chunk","payload_length":999999999}"#.utf8) + [10])
        #expect(throws: WyomingError.tooLarge("payload_length 999999999 is over \(WyomingParser.maxPayload)")) { _ = try parser.next() }
        var endless = WyomingParser()
        endless.push([UInt8](repeating: UInt8(ascii: "x"), count: WyomingParser.maxHeader + 1))
        #expect(throws: WyomingError.self) { _ = try endless.next() }
    }

    @Test func addressesParse() throws {
        #expect(try ServiceConfiguration.wyomingAddress("tcp://0.0.0.0:10301") == ("0.0.0.0", 10301))
        #expect(try ServiceConfiguration.wyomingAddress("tcp://127.0.0.1") == ("127.0.0.1", WyomingServer.defaultPort))
        #expect(throws: (any Error).self) { try ServiceConfiguration.wyomingAddress("http://x:1") }
        #expect(throws: (any Error).self) { try ServiceConfiguration.wyomingAddress("tcp://x:99999") }
        let broker = try MQTTSettings(url: "mqtts://user:pw@broker.local")
        #expect(broker.port == 8883 && broker.username == "user" && broker.password == "pw" && broker.caPath != nil)
        #expect(throws: (any Error).self) { try MQTTSettings(url: "tcp://broker") }
    }
}
