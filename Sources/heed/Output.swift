import Foundation
import Heed
import HeedAudio

/// Writes results: JSON Lines for programs, one readable line per utterance for people.
struct UtteranceWriter {
    let json: Bool
    /// Whether JSON lines carry the detector's decision (`--explain`).
    var detections = false

    func write(_ utterance: Utterance, source: String) {
        print(json ? jsonLine(utterance, source: source) : humanLine(utterance, source: source))
    }

    /// An utterance as usual; a dialogue step as `heed listen` prints it, with the file.
    func write(_ event: UtteranceStream.Event, source: String) {
        switch event {
        case .utterance(let utterance):
            write(utterance, source: source)
        case .dialogue(let step, let time):
            let line = EventWriter.dialogueLine(step, time: time, timestamp: JSON.number(Date().timeIntervalSince1970, decimals: 3), json: json)
            print(json ? "{\"file\":\(JSON.string(source))," + line.dropFirst() : "\(source)  " + line.trimmingCharacters(in: .whitespaces))
        case .speechStart, .partial:
            break
        }
    }

    func jsonLine(_ u: Utterance, source: String) -> String {
        let slots = (u.intent?.slots ?? [:]).sorted { $0.key < $1.key }
            .map { "\(JSON.string($0.key)):\(JSON.string($0.value))" }.joined(separator: ",")
        let fields = [
            "\"file\":\(JSON.string(source))",
            "\"start\":\(JSON.number(u.start))",
            "\"end\":\(JSON.number(u.end))",
            "\"transcript\":\(JSON.string(u.transcript))",
            "\"intent\":\(u.intent.map { JSON.string($0.name) } ?? "null")",
            "\"slots\":{\(slots)}",
            "\"understood\":\(u.understood)",
            "\"confidence\":\(JSON.number(u.confidence))",
        ] + (detections ? u.detection.map { ["\"detection\":" + DetectionJSON.text($0)] } ?? [] : [])
        return "{" + fields.joined(separator: ",") + "}"
    }

    func humanLine(_ u: Utterance, source: String) -> String {
        let span = String(format: "%6.2f-%-6.2f", u.start, u.end)
        let meaning: String
        if let intent = u.intent {
            let slots = intent.slots.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            meaning = "\(intent.name)\(slots.isEmpty ? "" : " " + slots)  \"\(u.transcript)\""
        } else if u.understood {
            meaning = "\"\(u.transcript)\""
        } else {
            meaning = "(not understood)"
        }
        return "\(source.isEmpty ? "" : source + "  ")\(span) \(meaning)  confidence \(String(format: "%.2f", u.confidence))"
    }
}

enum JSON {
    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func number(_ value: Double, decimals: Int = 2) -> String {
        guard value.isFinite else { return "null" }
        return String(format: "%.\(decimals)f", value)
    }
}

enum Terminal {
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// `heed serve` sets this to the sd-daemon error level ("<3>"), so journald files its error
    /// lines as errors; set once, before any thread starts.
    nonisolated(unsafe) static var errorPrefix = ""

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("\(errorPrefix)heed: \(message)\n".utf8))
    }

    /// Warns when a WAV file's rate is below the model's: the decoder gets the file resampled,
    /// but nothing above half the file's rate was ever recorded, and the acoustic model was
    /// trained on 16 kHz speech (cut to 8 kHz, the demo loses 2 of its 9 commands). Files that
    /// cannot be read are left to the decode to report.
    static func warnIfNarrowband(_ path: String, modelRate: Int) {
        guard let rate = try? WAVReader(contentsOf: URL(fileURLWithPath: path)).format.sampleRate, rate < modelRate else { return }
        error("warning: \(path): \(rate) Hz audio has nothing above \(rate / 2) Hz; the model was trained on \(modelRate / 1000) kHz speech, so commands may be missed")
    }

    /// Text on stderr as it is, without a newline (progress bars).
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }
}
