import Foundation
import HeedAudio
import HeedAuthorization
import HeedRecognition

/// Learns how one person speaks from recordings of phrases whose words are known, so the model
/// fits their vowels (a British "start" and "stop", say) before it hears their commands. The
/// result is a `SpeakerProfile`: give it to `RecognizerOptions.speaker`.
///
/// The phrases need not be commands: any sentences with the common sounds of English will do
/// (`Enrollment.prompts`). Record them in a quiet room; a noisy recording is refused, since it
/// would teach the model the room instead of the voice.
public final class Enrollment {
    private let decoder: Decoder
    private var statistics: SpeakerEnrollment
    private let authorization: Authorization
    /// Recordings whose quietest tenth is less than this many dB below their loudest frame are too
    /// noisy. The shared corpus's LibriVox passages, read in a quiet room, have 30 dB; pink noise
    /// alone has a few.
    public static let minDynamicRangeDB = 25.0

    public init(options: RecognizerOptions = .init(), authorization: Authorization) throws(HeedError) {
        precondition(authorization.service == .speechRecognition, "decoding needs a speech-recognition authorization")
        do { try authorization.verifyNow() } catch { throw HeedError(error) }
        self.authorization = authorization
        do {
            var configuration = options.decoder
            configuration.interleavedGaussians = true
            decoder = try Decoder(configuration: configuration)
            statistics = try SpeakerEnrollment(for: decoder)
        } catch { throw HeedError(error) }
    }

    /// The rate recordings are taken at (`add(samples:saying:)`).
    public var sampleRate: Int { decoder.sampleRate }

    /// Phrases read so far, and how many seconds of speech they gave.
    public var phrases: Int { statistics.phrases }
    public var speechSeconds: Double { Double(statistics.speechFrames) / Double(decoder.frameRate) }

    /// Adds a recording of `text` (mono or stereo WAV, any rate).
    public func add(file url: URL, saying text: String) throws(HeedError) {
        let wav: WAVFile
        do { wav = try WAVFile(contentsOf: url) } catch { throw HeedError(error) }
        let samples = PCM.int16(from: Resampler.convert(wav.samples, from: wav.format.sampleRate, to: decoder.sampleRate))
        do { try add(samples: samples, saying: text) } catch { throw HeedError(error.kind, "\(url.path): \(error.message)") }
    }

    /// Adds a recording of `text`, samples at the model's rate.
    public func add(samples: [Int16], saying text: String) throws(HeedError) {
        do { try authorization.verify() } catch { throw HeedError(error) }
        // Spelled as contexts are: lower case, punctuation off, "two-percent" as its parts if need be.
        let (words, missing) = ContextCompiler.spell(Context.words(text), for: decoder)
        guard !words.isEmpty else { throw HeedError(.badInput, "no words to enroll with") }
        guard missing.isEmpty else {
            throw HeedError(.configuration, "not in the pronunciation dictionary: \(missing.joined(separator: ", "))")
        }
        guard let range = NoiseStage.dynamicRange(of: samples[...], sampleRate: decoder.sampleRate) else {
            throw HeedError(.badInput, "the recording is empty")
        }
        guard range >= Self.minDynamicRangeDB else {
            throw HeedError(.badInput, String(format: "too noisy to enroll with (speech only %.0f dB above the background; %.0f needed): record in a quiet room",
                                              range, Self.minDynamicRangeDB))
        }
        do { try statistics.add(samples[...], saying: words, with: decoder) } catch {
            throw error.kind == .decoding ? HeedError(.badInput, error.message) : HeedError(error)
        }
    }

    /// The profile the phrases so far call for.
    public func profile() -> SpeakerProfile { statistics.profile(for: decoder) }

    /// Sentences to read for enrollment: the Harvard sentences' first lists, which cover the
    /// sounds of English in their usual proportions. None is a built-in command.
    public static let prompts = [
        "The birch canoe slid on the smooth planks",
        "Glue the sheet to the dark blue background",
        "It's easy to tell the depth of a well",
        "These days a chicken leg is a rare dish",
        "Rice is often served in round bowls",
        "The juice of lemons makes fine punch",
        "The box was thrown beside the parked truck",
        "The hogs were fed chopped corn and garbage",
        "Four hours of steady work faced us",
        "A large size in stockings is hard to sell",
        "The boy was there when the sun rose",
        "A rod is used to catch pink salmon",
        "The source of the huge river is the clear spring",
        "Kick the ball straight and follow through",
        "Help the woman get back to her feet",
        "A pot of tea helps to pass the evening",
        "Smoky fires lack flame and heat",
        "The soft cushion broke the man's fall",
        "The salt breeze came across from the sea",
        "The girl at the booth sold fifty bonds",
    ]
}
