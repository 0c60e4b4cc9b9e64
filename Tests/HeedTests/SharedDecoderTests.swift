import Foundation
import Heed
import HeedAudio
import HeedIntents
import HeedTestSupport
import Synchronization
import Testing

/// Several streams, one recognizer: each stream hears only its own audio, and a recognizer
/// replaced mid-stream loses nothing (real requests from Tests/Golden).
@Suite struct SharedDecoderTests {
    static let golden = Fixtures.root.appendingPathComponent("Tests/Golden/real-coffee")
    static let requests = ["0075d273-51bb-47cb-b323-4437bd0de029", "2630f6ea-dcdb-44d0-a045-b564d346f3d0"].map { golden.appendingPathComponent("\($0).wav") }

    func recognizer() throws -> CommandRecognizer {
        let context = try Context(contentsOf: Fixtures.root.appendingPathComponent("Models/contexts/coffee_maker.yaml"))
        return try CommandRecognizer(vocabulary: .commands(CommandSet(), contexts: [context]), authorization: TestAuthorization.speechRecognition())
    }

    final class Heard: Sendable {
        let utterances = Mutex<[Utterance]>([])
        let finished = Atomic<Bool>(false)
        let dropped = Atomic<Int>(-1)
        func record(_ event: SharedDecoder.StreamEvent) {
            switch event {
            case .event(.utterance(let utterance)): utterances.withLock { $0.append(utterance) }
            case .finished(let lost, _):
                dropped.store(lost, ordering: .relaxed)
                finished.store(true, ordering: .relaxed)
            default: break
            }
        }
    }

    /// Feeds each stream its file in 20 ms pieces, interleaved, replacing the recognizer after
    /// `replaceAfter` pieces; returns what each stream heard.
    func decode(replaceAfter: Int? = nil) throws -> [[Utterance]] {
        let first = try recognizer()
        let expected = try Self.requests.map { try first.recognize(file: $0) }
        let decoder = SharedDecoder(recognizer: first)
        let heard = Self.requests.map { _ in Heard() }
        let streams = heard.map { sink in decoder.open { sink.record($0) } }
        let audio = try Self.requests.map { try first.loadAudio(file: $0) }
        let stop = Atomic<Bool>(false)
        let thread = Thread { try? decoder.run(shouldStop: { stop.load(ordering: .relaxed) }) }
        thread.start()
        let replacement = try recognizer()
        for piece in 0..<(audio.map(\.count).max()! / 320 + 1) {
            if piece == replaceAfter { decoder.replace(with: replacement) }
            for (stream, samples) in zip(streams, audio) where piece * 320 < samples.count {
                decoder.append(Array(samples[piece * 320..<min(samples.count, piece * 320 + 320)]), to: stream)
            }
        }
        for stream in streams { decoder.finish(stream) }
        let deadline = Date().addingTimeInterval(120)
        while heard.contains(where: { !$0.finished.load(ordering: .relaxed) }) && Date() < deadline { usleep(10_000) }
        stop.store(true, ordering: .relaxed)
        let results = heard.map { $0.utterances.withLock { $0 } }
        // As each file is heard on its own.
        #expect(results.map { $0.filter(\.understood).map(\.transcript) } == expected.map { $0.filter(\.understood).map(\.transcript) })
        return results
    }

    @Test func eachStreamHearsItsOwnAudio() throws {
        let results = try decode()
        #expect(results.map { $0.first { $0.understood }?.intent?.name } == ["orderDrink", "orderDrink"])
    }

    @Test func aReplacedRecognizerKeepsEveryStreamsTimes() throws {
        // Replaced at 0.2 s, before either request starts: the requests are heard by the new one,
        // at the times they have in their files.
        let plain = try decode()
        let replaced = try decode(replaceAfter: 10)
        #expect(replaced.map { $0.filter(\.understood).map(\.start) } == plain.map { $0.filter(\.understood).map(\.start) })
    }

    @Test func aStreamQueuesAtMostItsBound() throws {
        let decoder = SharedDecoder(recognizer: try recognizer(), maxQueuedSeconds: 1)
        let heard = Heard()
        let stream = decoder.open { heard.record($0) }
        // Nothing decodes yet (run is not called): three seconds queued, the oldest two dropped.
        #expect(decoder.append([Int16](repeating: 0, count: 48000), to: stream))
        decoder.finish(stream)
        #expect(!decoder.append([0], to: stream))  // finishing: no more audio
        let gone = decoder.open { _ in }
        decoder.close(gone)
        #expect(!decoder.append([0], to: gone))
        let stop = Atomic<Bool>(false)
        let thread = Thread { try? decoder.run(shouldStop: { stop.load(ordering: .relaxed) }) }
        thread.start()
        let deadline = Date().addingTimeInterval(30)
        while !heard.finished.load(ordering: .relaxed) && Date() < deadline { usleep(10_000) }
        stop.store(true, ordering: .relaxed)
        #expect(heard.dropped.load(ordering: .relaxed) == 32000)
    }
}
