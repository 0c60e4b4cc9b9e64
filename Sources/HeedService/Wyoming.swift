import Foundation

/// One event of the Wyoming protocol (Home Assistant's, for local speech services): a JSON
/// header line `{"type", "data"?, "data_length"?, "payload_length"?}`, then `data_length`
/// bytes of JSON merged into `data`, then `payload_length` bytes of payload (audio).
public struct WyomingEvent: @unchecked Sendable {
    // @unchecked: `data` holds only what JSONSerialization makes (strings, numbers, arrays, dictionaries).
    public var type: String
    public var data: [String: Any]
    public var payload: [UInt8]

    public init(_ type: String, _ data: [String: Any] = [:], payload: [UInt8] = []) {
        self.type = type
        self.data = data
        self.payload = payload
    }

    public func string(_ key: String) -> String? { data[key] as? String }
    public func int(_ key: String) -> Int? { (data[key] as? NSNumber)?.intValue }

    /// The event on the wire.
    public func encoded() -> [UInt8] {
        var header: [String: Any] = ["type": type, "version": WyomingEvent.protocolVersion]
        var body: Data?
        if !data.isEmpty, let json = try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys]) {
            body = json
            header["data_length"] = json.count
        }
        if !payload.isEmpty { header["payload_length"] = payload.count }
        var bytes = [UInt8]((try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) ?? Data())
        bytes.append(UInt8(ascii: "\n"))
        if let body { bytes += body }
        return bytes + payload
    }

    /// The protocol version Heed speaks (the PyPI `wyoming` package it is tested with).
    public static let protocolVersion = "1.10.0"
}

/// Why a connection's bytes are not Wyoming events.
public enum WyomingError: Error, Equatable, CustomStringConvertible {
    /// A header line that is not a JSON object with a "type" (skipped: the next line is read).
    case badHeader(String)
    /// A header, data or payload larger than the bounds (the connection cannot go on).
    case tooLarge(String)

    public var description: String {
        switch self {
        case .badHeader(let why): return "bad event header: \(why)"
        case .tooLarge(let why): return why
        }
    }
}

/// Splits a connection's bytes into events, as they arrive, within fixed bounds: a client can
/// make the server hold at most `maxHeader + maxData + maxPayload` bytes for it.
public struct WyomingParser {
    public static let maxHeader = 64 * 1024
    public static let maxData = 64 * 1024
    /// Four seconds of 48 kHz stereo 16-bit audio in one chunk; clients send 10-100 ms.
    public static let maxPayload = 1024 * 1024

    private var buffer: [UInt8] = []
    private var pending: (type: String, data: [String: Any], dataLength: Int, payloadLength: Int)?

    public init() {}

    public mutating func push(_ bytes: some Collection<UInt8>) { buffer.append(contentsOf: bytes) }

    /// The next whole event, nil when more bytes are needed. After `.badHeader` the parser goes
    /// on with the next line; after `.tooLarge` the connection should close.
    public mutating func next() throws(WyomingError) -> WyomingEvent? {
        if pending == nil {
            guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else {
                if buffer.count > Self.maxHeader { throw .tooLarge("event header longer than \(Self.maxHeader) bytes") }
                return nil
            }
            let line = Array(buffer[..<newline])
            buffer.removeFirst(newline + 1)
            guard newline <= Self.maxHeader else { throw .tooLarge("event header longer than \(Self.maxHeader) bytes") }
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) { return try next() }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)), let header = object as? [String: Any] else {
                throw .badHeader("not a JSON object")
            }
            guard let type = header["type"] as? String, !type.isEmpty else { throw .badHeader("no \"type\"") }
            let dataLength = (header["data_length"] as? NSNumber)?.intValue ?? 0
            let payloadLength = (header["payload_length"] as? NSNumber)?.intValue ?? 0
            guard dataLength >= 0, payloadLength >= 0 else { throw .badHeader("negative data_length or payload_length") }
            guard dataLength <= Self.maxData else { throw .tooLarge("data_length \(dataLength) is over \(Self.maxData)") }
            guard payloadLength <= Self.maxPayload else { throw .tooLarge("payload_length \(payloadLength) is over \(Self.maxPayload)") }
            pending = (type, header["data"] as? [String: Any] ?? [:], dataLength, payloadLength)
        }
        guard let event = pending, buffer.count >= event.dataLength + event.payloadLength else { return nil }
        pending = nil
        var data = event.data
        if event.dataLength > 0 {
            let extra = Data(buffer[..<event.dataLength])
            guard let merged = (try? JSONSerialization.jsonObject(with: extra)) as? [String: Any] else {
                buffer.removeFirst(event.dataLength + event.payloadLength)
                throw .badHeader("the \(event.dataLength) bytes of data are not a JSON object")
            }
            data.merge(merged) { _, new in new }
        }
        let payload = Array(buffer[event.dataLength..<event.dataLength + event.payloadLength])
        buffer.removeFirst(event.dataLength + event.payloadLength)
        return WyomingEvent(event.type, data, payload: payload)
    }
}
