import Foundation
import HeedAudio
import HeedShortcuts
import Synchronization

/// Several audio streams decoded by one recognizer, one step at a time, on the thread that calls
/// `run`: a service's microphone, its Wyoming clients, its hub's sites. A board has one slow core
/// to spare and room for one acoustic model, so every stream shares both.
///
/// Other threads only queue audio. Each stream queues at most `maxQueuedSeconds`: a peer that
/// sends faster than it can be decoded loses its oldest audio (counted in `finished`), so memory
/// per stream stays bounded. The recognizer can be replaced while running (`replace`): each open
/// stream finishes what it heard with the old one and goes on with the new, and no audio is dropped.
public final class SharedDecoder: Sendable {
    public struct StreamID: Hashable, Sendable, CustomStringConvertible {
        let value: Int
        public var description: String { "#\(value)" }
    }

    /// What a network stream hears, on the decoding thread.
    public enum StreamEvent: Sendable {
        case event(UtteranceStream.Event)
        /// The stream was finished (`finish`) and everything queued was decoded; `droppedSamples`
        /// were lost to the queue bound, `error` stopped decoding it early.
        case finished(droppedSamples: Int, error: HeedError?)
    }

    public let sampleRate: Int
    public let maxQueuedSeconds: Double

    private struct Queued {
        var samples: [Int16] = []
        var dropped = 0
        var finishing = false
        let onEvent: @Sendable (StreamEvent) -> Void
    }

    private struct State {
        var nextID = 0
        var queued: [StreamID: Queued] = [:]
        var replacement: Handover?
    }

    /// A recognizer on its way to the decoding thread; no other thread uses it after `replace`.
    private struct Handover: @unchecked Sendable { let recognizer: CommandRecognizer }

    // @unchecked: the recognizer is used only on the thread in `run`; other threads hand one over
    // through `state`, under its lock.
    private nonisolated(unsafe) var recognizer: CommandRecognizer
    private let state = Mutex(State())
    private let shortcuts: ShortcutStore?
    private let microphoneSamples = Atomic<Int>(0)
    private let steps = Atomic<Int>(0)

    /// How far decoding has got: microphone samples read so far, and steps of the decoding loop
    /// (a watchdog checks these keep moving).
    public var progress: (microphoneSamples: Int, steps: Int) {
        (microphoneSamples.load(ordering: .relaxed), steps.load(ordering: .relaxed))
    }

    public init(recognizer: CommandRecognizer, maxQueuedSeconds: Double = 30, shortcuts: ShortcutStore? = nil) {
        self.recognizer = recognizer
        sampleRate = recognizer.sampleRate
        self.maxQueuedSeconds = maxQueuedSeconds
        self.shortcuts = shortcuts
    }

    /// Opens a stream of samples at `sampleRate`; `onEvent` is called on the decoding thread.
    public func open(onEvent: @escaping @Sendable (StreamEvent) -> Void) -> StreamID {
        state.withLock { state in
            state.nextID += 1
            let id = StreamID(value: state.nextID)
            state.queued[id] = Queued(onEvent: onEvent)
            return id
        }
    }

    /// Queues samples (at `sampleRate`, mono) for `id`; false when the stream is not open.
    @discardableResult
    public func append(_ samples: [Int16], to id: StreamID) -> Bool {
        let limit = Int(maxQueuedSeconds * Double(sampleRate))
        return state.withLock { state in
            guard var queued = state.queued[id], !queued.finishing else { return false }
            queued.samples += samples
            if queued.samples.count > limit {
                let excess = queued.samples.count - limit
                queued.samples.removeFirst(excess)
                queued.dropped += excess
            }
            state.queued[id] = queued
            return true
        }
    }

    /// Ends `id`: what is queued is decoded, any utterance still open is ended, then
    /// `.finished` is its last event.
    public func finish(_ id: StreamID) {
        state.withLock { $0.queued[id]?.finishing = true }
    }

    /// Drops `id` and what it queued, without decoding it (its peer went away).
    public func close(_ id: StreamID) {
        _ = state.withLock { $0.queued.removeValue(forKey: id) }
    }

    /// Decodes with `recognizer` from the next step on (same model rate).
    public func replace(with recognizer: CommandRecognizer) {
        precondition(recognizer.sampleRate == sampleRate, "a replacement recognizer must decode at \(sampleRate) Hz")
        state.withLock { $0.replacement = Handover(recognizer: recognizer) }
    }

    /// Decodes until `shouldStop` returns true. With a `microphone`, it is captured on its own
    /// thread and decoded here too, its events (`Listener`'s) reported to `onMicrophone`, and
    /// decoding ends with its `.stopped` event when its input ends, fails, or is stopped (what it
    /// captured before the stop is decoded first). Throws when the microphone cannot open, or
    /// decoding fails without one.
    public func run(microphone: LiveSource? = nil, bufferSeconds: Double = 2, maxSeconds: Double? = nil,
                    shouldStop: @escaping @Sendable () -> Bool, onMicrophone: (ListenEvent) -> Void = { _ in }) throws(HeedError) {
        let input = try microphone.map { source throws(HeedError) in
            try LiveInput(source: source, rate: sampleRate, bufferSeconds: bufferSeconds, maxSeconds: maxSeconds,
                          shouldStop: shouldStop) { onMicrophone(.deviceLost(message: $0)) }
        }
        if let input { onMicrophone(.listening(source: input.label, format: input.formatDescription)) }
        var shortcutVersion: Int?
        var shortcutsChecked = ContinuousClock.now
        try refreshShortcuts(since: &shortcutVersion, onEvent: onMicrophone)
        input?.start()
        defer { input?.stop() }

        var microphoneStream = input.map { _ in recognizer.makeStream() }
        var streams: [StreamID: UtteranceStream] = [:]
        // A stream replaced by a new recognizer counts from zero again: its times are moved by
        // where the one before it ended, so they stay times in the whole stream.
        var microphoneOffset = 0
        var offsets: [StreamID: Int] = [:]
        var failure: HeedError?
        func micEvents(_ events: [UtteranceStream.Event], at position: Int) {
            for event in events {
                onMicrophone(Listener.listenEvent(shifted(event, by: microphoneOffset), at: microphoneOffset + position, rate: sampleRate))
            }
        }
        func shifted(_ event: UtteranceStream.Event, by samples: Int) -> UtteranceStream.Event {
            guard samples > 0 else { return event }
            let seconds = Double(samples) / Double(sampleRate)
            switch event {
            case .speechStart(let time): return .speechStart(time + seconds)
            case .partial: return event
            case .utterance(var utterance):
                utterance.start += seconds
                utterance.end += seconds
                return .utterance(utterance)
            case .dialogue(let step, let time): return .dialogue(step, time: time + seconds)
            }
        }

        // The microphone's level over each tenth of a second, for a meter.
        var levelEnergy = 0.0, levelSamples = 0
        while true {
            if shouldStop() {
                // A microphone is drained first: what it captured before the stop is still heard.
                guard let input else { break }
                input.requestStop()
            }
            steps.add(1, ordering: .relaxed)
            var busy = false
            // A new recognizer: every stream ends what it heard with the old one, then goes on.
            let handover = state.withLock { state -> Handover? in
                defer { state.replacement = nil }
                return state.replacement
            }
            if let next = handover?.recognizer {
                do {
                    if var stream = microphoneStream {
                        micEvents(try stream.finishEvents(), at: stream.position)
                        microphoneOffset += stream.position
                        microphoneStream = next.makeStream()
                    }
                    for (id, var stream) in streams {
                        let events = try stream.finishEvents()
                        let onEvent = state.withLock { $0.queued[id]?.onEvent }
                        for event in events { onEvent?(.event(shifted(event, by: offsets[id, default: 0]))) }
                        offsets[id, default: 0] += stream.position
                        streams[id] = next.makeStream()
                    }
                } catch {
                    failure = error
                    break
                }
                recognizer = next
                shortcutVersion = nil
            }
            if let input {
                let inputDone = input.isFinished
                let samples = input.read()
                if !samples.isEmpty {
                    busy = true
                    microphoneSamples.add(samples.count, ordering: .relaxed)
                    for sample in samples { levelEnergy += Double(sample) * Double(sample) }
                    levelSamples += samples.count
                    if levelSamples >= sampleRate / 10 {
                        onMicrophone(.level(dBFS: 10 * log10(levelEnergy / Double(levelSamples) / (32768.0 * 32768.0) + 1e-12)))
                        levelEnergy = 0
                        levelSamples = 0
                    }
                    do { micEvents(try microphoneStream!.feedEvents(samples), at: microphoneStream!.position) } catch {
                        failure = error
                        break
                    }
                }
                for change in input.changes() { onMicrophone(change) }
                if inputDone && samples.isEmpty {
                    if let error = input.failure { failure = error; break }
                    do { micEvents(try microphoneStream!.finishEvents(), at: microphoneStream!.position) } catch { failure = error; break }
                    onMicrophone(.stopped(error: nil, seconds: Double(microphoneOffset + microphoneStream!.position) / Double(sampleRate),
                                          droppedSamples: input.droppedSamples, deviceOverruns: input.deviceOverruns))
                    return  // the recording (or `maxSeconds`) is over
                }
            }
            // Each network stream: what it queued since the last step.
            let work = state.withLock { state in
                state.queued.map { id, queued in
                    state.queued[id]!.samples = []
                    return (id, queued)
                }
            }
            for (id, queued) in work {
                if streams[id] == nil { streams[id] = recognizer.makeStream() }
                do {
                    if !queued.samples.isEmpty {
                        busy = true
                        for event in try streams[id]!.feedEvents(queued.samples) { queued.onEvent(.event(shifted(event, by: offsets[id, default: 0]))) }
                    }
                    if queued.finishing {
                        busy = true
                        for event in try streams[id]!.finishEvents() { queued.onEvent(.event(shifted(event, by: offsets[id, default: 0]))) }
                        streams[id] = nil
                        offsets[id] = nil
                        state.withLock { _ = $0.queued.removeValue(forKey: id) }
                        queued.onEvent(.finished(droppedSamples: queued.dropped, error: nil))
                    }
                } catch {
                    // One peer's bad stream ends that stream, not the service.
                    streams[id] = nil
                    offsets[id] = nil
                    state.withLock { _ = $0.queued.removeValue(forKey: id) }
                    queued.onEvent(.finished(droppedSamples: queued.dropped, error: error))
                }
            }
            // Streams closed by their peers.
            let open = state.withLock { Set($0.queued.keys) }
            for id in streams.keys where !open.contains(id) {
                streams[id] = nil
                offsets[id] = nil
            }
            if ContinuousClock.now - shortcutsChecked >= Listener.shortcutPollInterval {
                shortcutsChecked = ContinuousClock.now
                do { try refreshShortcuts(since: &shortcutVersion, onEvent: onMicrophone) } catch { failure = error; break }
            }
            if !busy { usleep(5_000) }
        }
        // Only a failure ends a microphone's decoding here (its end and its stop return above).
        if let input, let stream = microphoneStream {
            onMicrophone(.stopped(error: failure, seconds: Double(microphoneOffset + stream.position) / Double(sampleRate),
                                  droppedSamples: input.droppedSamples, deviceOverruns: input.deviceOverruns))
        } else if let failure {
            throw failure
        }
    }

    private func refreshShortcuts(since version: inout Int?, onEvent: (ListenEvent) -> Void) throws(HeedError) {
        guard let shortcuts else { return }
        try Listener.refreshShortcuts(shortcuts, into: recognizer, since: &version, onEvent: onEvent)
    }
}
