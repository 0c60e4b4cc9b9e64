import Foundation
import Heed
import HeedAudio
import HeedRecognition
import HeedService

/// The parsers that read what users and files hand Heed, each fed arbitrary bytes. A target
/// must never crash, hang or allocate what a header merely claims; errors are fine.
enum FuzzTarget: String, CaseIterable {
    case wav, context, suite, manifest, policy, dict, wyoming, service

    func run(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        switch self {
        case .wav:
            if let wav = try? WAVFile(data: data) {
                // What the pipeline does next with a file that parsed.
                _ = Resampler.convert(Array(wav.samples.prefix(16_000)), from: wav.format.sampleRate, to: 16_000)
            }
        case .context:
            if let context = try? Context(yaml: text, source: "fuzz.yml") {
                // Matching and dialogue rules over whatever parsed.
                _ = context.match(["order", "a", "large", "tea"])
                _ = context.vocabulary
                var conversation = Conversation(contexts: [context])
                for intent in context.intentNames.prefix(3) {
                    _ = conversation.heard(intent: Intent(name: intent), words: [], understood: true, start: 0, end: 1)
                    _ = conversation.heard(intent: nil, words: ["yes"], understood: true, start: 1, end: 2)
                }
            }
        case .suite:
            _ = try? TestSuite(manifest: text, directory: URL(fileURLWithPath: "/nonexistent-heed-fuzz"))
        case .manifest:
            _ = try? AppManifest(yaml: text, source: "fuzz.app.yml")
        case .policy:
            _ = try? AdminPolicy.parse(text, path: "fuzz.policy.yml")
        case .wyoming:
            // A client's bytes, in two pieces, as a socket may split them; audio as announced.
            var parser = WyomingParser()
            parser.push(data.prefix(data.count / 2))
            parser.push(data.dropFirst(data.count / 2))
            for _ in 0..<64 {
                do {
                    guard let event = try parser.next() else { break }
                    if let format = try? PCMConverter.Format(rate: event.int("rate") ?? 16000, width: event.int("width") ?? 2, channels: event.int("channels") ?? 1) {
                        var converter = PCMConverter(from: format, to: 16_000)
                        _ = converter.convert(event.payload.prefix(16_000))
                    }
                    _ = event.encoded()
                } catch WyomingError.tooLarge { break } catch { continue }
            }
        case .service:
            _ = try? ServiceConfiguration(yaml: text, path: "fuzz.yml", relativeTo: URL(fileURLWithPath: "/etc/heed"))
        case .dict:
            _ = try? PronunciationFile.parse(text, source: "fuzz.dict")
            // The same bytes as the decoder's dictionary: indexed, then looked up by their own words.
            if let lexicon = try? Lexicon(bytes: Array(data), source: URL(fileURLWithPath: "fuzz.dict")) {
                for word in text.split(whereSeparator: \.isWhitespace).prefix(8) { _ = lexicon.entries(for: String(word)) }
                _ = lexicon.entries(for: "a")
            }
        }
    }
}
