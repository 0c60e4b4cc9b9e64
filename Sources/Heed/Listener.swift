import Foundation
import HeedAudio
import HeedCapture
import HeedShortcuts
import Synchronization

/// Where live audio comes from.
public enum LiveSource: Sendable {
    /// An ALSA capture device, opened only with a microphone authorization. With `reconnect`,
    /// a device that is missing or disappears is opened again every `reconnect` until it is back.
    case device(name: String, microphone: Authorization, reconnect: Duration? = nil)
    /// A WAV file played through the same path at real-time pace (hands-free tests, benchmarks).
    case pacedFile(URL)
}

/// What a listener reports, in order.
public enum ListenEvent: Sendable, Equatable {
    case listening(source: String, format: String)
    /// Speech began at this many seconds of stream time.
    case speechStart(time: Double)
    /// What the speech so far sounds like (only with `RecognizerOptions.partialInterval`).
    case partial(time: Double, transcript: String)
    /// An utterance ended: an intent, or speech that was not understood.
    case utterance(Utterance)
    /// A question, a completed intent or an abandoned one, at this stream time (only for
    /// contexts with a `dialogue:`; then act on `.completed`, not on each utterance).
    case dialogue(Conversation.Event, time: Double)
    /// The input level over the last tenth of a second, in dBFS (for a meter).
    case level(dBFS: Double)
    /// Audio was lost: the decoder fell behind the ring (samples), or the device overran.
    case overrun(droppedSamples: Int, deviceOverruns: Int)
    /// The capture device is missing or went away (`--reconnect`: it is being reopened).
    case deviceLost(message: String)
    /// The capture device is back after `deviceLost`.
    case deviceRestored(format: String)
    /// The donated shortcuts in the grammar changed (at start, and after each donation or
    /// deletion): how many are active, and why others were left out.
    case shortcuts(active: Int, skipped: [String])
    /// Listening ended; `error` is nil when it ended normally (input over, or asked to stop).
    case stopped(error: HeedError?, seconds: Double, droppedSamples: Int, deviceOverruns: Int)
}

/// Live listening: a capture thread fills a lock-free ring; the calling thread endpoints and
/// decodes. Capture never waits for the decoder; if the decoder falls behind by more than the
/// ring holds, the oldest audio is dropped and reported.
public final class Listener {
    public let source: LiveSource
    private let recognizer: CommandRecognizer
    public let bufferSeconds: Double
    /// Stop after this much audio (nil: until stopped).
    public let maxSeconds: Double?
    /// Where donated shortcuts come from (nil: none); re-read whenever another process changes it.
    public let shortcuts: ShortcutStore?
    /// How often the shortcut store is checked for changes.
    static let shortcutPollInterval = Duration.milliseconds(500)

    public init(source: LiveSource, recognizer: CommandRecognizer, bufferSeconds: Double = 2, maxSeconds: Double? = nil,
                shortcuts: ShortcutStore? = nil) {
        self.source = source
        self.recognizer = recognizer
        self.bufferSeconds = bufferSeconds
        self.maxSeconds = maxSeconds
        self.shortcuts = shortcuts
    }

    /// Puts the store's shortcuts into the grammar when the store changed since `version`.
    static func refreshShortcuts(_ shortcuts: ShortcutStore, into recognizer: CommandRecognizer, since version: inout Int?,
                                 onEvent: (ListenEvent) -> Void) throws(HeedError) {
        let current: Int
        do { current = try shortcuts.version() } catch { throw HeedError(error) }
        guard current != version else { return }
        version = current
        let all: [Shortcut]
        do { all = try shortcuts.all() } catch { throw HeedError(error) }
        let skipped = try recognizer.setShortcuts(all)
        onEvent(.shortcuts(active: all.count - skipped.count, skipped: skipped))
    }

    /// Listens until `shouldStop` returns true, the input ends, or an error; calls `onEvent` for
    /// each event on the calling thread. Throws only when listening cannot start. (The microphone
    /// is a `SharedDecoder`'s stream with no other streams beside it.)
    public func run(shouldStop: @escaping @Sendable () -> Bool, onEvent: (ListenEvent) -> Void) throws(HeedError) {
        try SharedDecoder(recognizer: recognizer, shortcuts: shortcuts)
            .run(microphone: source, bufferSeconds: bufferSeconds, maxSeconds: maxSeconds, shouldStop: shouldStop, onMicrophone: onEvent)
    }

    /// A stream's event as a listener reports it; `position` (samples at `rate`) dates a partial.
    public static func listenEvent(_ event: UtteranceStream.Event, at position: Int, rate: Int) -> ListenEvent {
        let time = Double(position) / Double(rate)
        switch event {
        case .speechStart(let time): return .speechStart(time: time)
        case .partial(let text): return .partial(time: time, transcript: text)
        case .utterance(let utterance): return .utterance(utterance)
        case .dialogue(let step, let at): return .dialogue(step, time: at)
        }
    }
}

/// The live half of listening: a producer (device or paced file) on its own thread fills the
/// lock-free ring; the reading thread takes back mono samples at the model's rate. Listener and
/// SharedDecoder both read the microphone through it.
final class LiveInput {
    private let producer: Producer
    private let ring: SampleRing
    private var capture: CaptureThread?
    private var resampler: Resampler
    private var interleaved: [Int16] = []
    private var reportedDrops = 0, reportedOverruns = 0
    let shouldStop: @Sendable () -> Bool

    init(source: LiveSource, rate: Int, bufferSeconds: Double, maxSeconds: Double?,
         shouldStop: @escaping @Sendable () -> Bool, onWaiting: (String) -> Void) throws(HeedError) {
        producer = try Producer(source: source, targetRate: rate, maxSeconds: maxSeconds, shouldStop: shouldStop, onWaiting: onWaiting)
        ring = SampleRing(capacity: max(1, Int(bufferSeconds * Double(producer.rate))) * producer.channels)
        resampler = Resampler(from: producer.rate, to: rate)
        self.shouldStop = shouldStop
    }

    var label: String { producer.label }
    var formatDescription: String { producer.formatDescription }

    /// Starts the capture thread.
    func start() { capture = CaptureThread(producer, into: ring, shouldStop: shouldStop) }

    /// Everything captured since the last read, mixed to mono and converted to the model's rate.
    func read() -> [Int16] {
        interleaved.removeAll(keepingCapacity: true)
        ring.read(into: &interleaved)
        guard !interleaved.isEmpty else { return [] }
        let mono = Self.mixToMono(interleaved, channels: producer.channels)
        return resampler.isPassthrough ? mono : PCM.int16(from: resampler.process(PCM.float(from: mono)))
    }

    /// Capture ended (input over, stopped or failed); what it captured may still be in the ring.
    var isFinished: Bool { capture?.isFinished ?? true }
    var failure: HeedError? { capture?.failure }
    var droppedSamples: Int { ring.dropped / producer.channels }
    var deviceOverruns: Int { producer.deviceOverruns }

    /// Device losses and returns, and an overrun event when audio was lost since the last call.
    func changes() -> [ListenEvent] {
        var events = producer.takeDeviceChanges()
        let drops = ring.dropped, overruns = producer.deviceOverruns
        if drops != reportedDrops || overruns != reportedOverruns {
            events.append(.overrun(droppedSamples: drops / producer.channels, deviceOverruns: overruns))
            reportedDrops = drops
            reportedOverruns = overruns
        }
        return events
    }

    func requestStop() { producer.requestStop() }

    /// Stops capture and waits until it has.
    func stop() {
        producer.requestStop()
        capture?.stop()
    }

    static func mixToMono(_ interleaved: [Int16], channels: Int) -> [Int16] {
        guard channels > 1 else { return interleaved }
        return stride(from: 0, to: interleaved.count - channels + 1, by: channels).map { start in
            var sum = 0
            for channel in 0..<channels { sum += Int(interleaved[start + channel]) }
            return Int16(sum / channels)
        }
    }
}

/// A producer running on its own thread ("heed-capture") until its input ends or `stop()`.
final class CaptureThread: Sendable {
    private let producer: Producer
    private let finished = Atomic<Bool>(false)
    private let failed = Mutex<HeedError?>(nil)

    init(_ producer: Producer, into ring: SampleRing, shouldStop: @escaping @Sendable () -> Bool) {
        self.producer = producer
        let thread = Thread { [self] in
            do { try producer.run(into: ring, shouldStop: shouldStop) } catch {
                failed.withLock { $0 = error as? HeedError ?? HeedError(.internalFailure, "\(error)") }
            }
            finished.store(true, ordering: .releasing)
        }
        thread.name = "heed-capture"
        thread.start()
    }

    /// The input ended or failed (everything captured is in the ring by then).
    var isFinished: Bool { finished.load(ordering: .acquiring) }
    /// Why capture stopped, if it failed.
    var failure: HeedError? { failed.withLock { $0 } }

    /// Asks capture to stop and waits until it has.
    func stop() {
        producer.requestStop()
        while !isFinished { usleep(1_000) }
    }
}

/// The capture side, run on its own thread: reads the device (or paces a file) into the ring.
final class Producer: Sendable {
    let label: String
    let rate: Int
    let channels: Int
    let formatDescription: String
    private let stopRequested = Atomic<Bool>(false)
    private let overruns = Atomic<Int>(0)
    /// Device losses and returns, for the listener's thread to report.
    private let deviceChanges = Mutex<[ListenEvent]>([])
    private let maxFrames: Int?
    private let input: Input

    private enum Input: @unchecked Sendable {
        // @unchecked: the device is used only by the capture thread once `run` starts; the
        // listener's thread only reads the atomics above.
        // The same holds for the file: read only on the capture thread, a piece at a time, so an
        // hour of input costs no more memory than a minute.
        case device(CaptureDevice, Authorization, reconnect: Duration?, preferredRate: Int)
        case file(ConvertedWAVStream)
    }

    var deviceOverruns: Int { overruns.load(ordering: .relaxed) }

    /// With `reconnect`, a device that cannot be opened is tried again until it opens or
    /// `shouldStop`, and `onWaiting` hears why each time it is not there yet.
    init(source: LiveSource, targetRate: Int, maxSeconds: Double?, shouldStop: () -> Bool = { false },
         onWaiting: (String) -> Void = { _ in }) throws(HeedError) {
        switch source {
        case .device(let name, let microphone, let reconnect):
            var device: CaptureDevice?
            var reported: String?
            while device == nil {
                // The gate comes before the device is touched at all.
                precondition(microphone.service == .microphone, "capture needs a microphone authorization")
                do { try microphone.verifyNow() } catch { throw HeedError(error) }
                do {
                    device = try CaptureDevice(name: name, preferredRate: targetRate)
                } catch where error.kind == .unavailable && reconnect != nil && !shouldStop() {
                    if error.message != reported { onWaiting(error.message) }  // once, not every attempt
                    reported = error.message
                    Self.pause(reconnect!, unless: shouldStop)
                    CaptureDevice.reloadConfiguration()
                } catch {
                    throw HeedError(.unavailable, error.message)
                }
            }
            label = name
            rate = device!.format.sampleRate
            channels = device!.format.channels
            formatDescription = device!.format.description
            input = .device(device!, microphone, reconnect: reconnect, preferredRate: targetRate)
        case .pacedFile(let url):
            let wav: ConvertedWAVStream
            do { wav = try ConvertedWAVStream(contentsOf: url, rate: targetRate) } catch { throw HeedError(error) }
            label = url.path
            rate = targetRate
            channels = 1
            formatDescription = "\(url.lastPathComponent): \(wav.format.sampleRate) Hz \(wav.format.channels) ch, paced in real time"
            input = .file(wav)
        }
        let frameRate = Double(rate)
        maxFrames = maxSeconds.map { Int($0 * frameRate) }
    }

    func requestStop() { stopRequested.store(true, ordering: .relaxed) }

    func takeDeviceChanges() -> [ListenEvent] {
        deviceChanges.withLock { changes in defer { changes = [] }; return changes }
    }

    /// Sleeps `interval` in short steps, returning early when `stop` says so.
    private static func pause(_ interval: Duration, unless stop: () -> Bool) {
        let until = ContinuousClock.now + interval
        while ContinuousClock.now < until && !stop() { Thread.sleep(forTimeInterval: 0.05) }
    }

    func run(into ring: SampleRing, shouldStop: @Sendable () -> Bool) throws(HeedError) {
        let period = max(1, rate / 50)  // 20 ms
        var frames = 0
        func done() -> Bool { stopRequested.load(ordering: .relaxed) || shouldStop() || (maxFrames.map { frames >= $0 } ?? false) }
        switch input {
        case .device(let first, let microphone, let reconnect, let preferredRate):
            var device: CaptureDevice? = first
            var buffer: [Int16] = []
            var lostOverruns = 0
            while !done() {
                do { try microphone.verify() } catch { throw HeedError(error) }
                guard let open = device else {
                    // Lost: open it again, with the format the ring and resampler were set up for.
                    Self.pause(reconnect ?? .seconds(1), unless: done)
                    CaptureDevice.reloadConfiguration()
                    do { try microphone.verifyNow() } catch { throw HeedError(error) }
                    guard let again = try? CaptureDevice(name: label, preferredRate: preferredRate) else { continue }
                    guard again.format.sampleRate == rate && again.format.channels == channels else {
                        throw HeedError(.unavailable, "capture device '\(label)' came back as \(again.format), not \(rate) Hz \(channels) ch; restart heed listen")
                    }
                    device = again
                    deviceChanges.withLock { $0.append(.deviceRestored(format: again.format.description)) }
                    continue
                }
                let want = maxFrames.map { min(period, $0 - frames) } ?? period
                let got: Int
                do { got = try open.read(into: &buffer, frames: want) } catch {
                    guard reconnect != nil else { throw HeedError(.unavailable, error.message) }
                    lostOverruns += open.overruns
                    device = nil  // closes it
                    deviceChanges.withLock { $0.append(.deviceLost(message: error.message)) }
                    continue
                }
                buffer.withUnsafeBufferPointer { ring.write(UnsafeBufferPointer(rebasing: $0[0..<got * channels])) }
                frames += got
                overruns.store(lostOverruns + open.overruns, ordering: .relaxed)
            }
        case .file(var wav):
            // Real-time pace: each 20 ms period is released when its time has come.
            let start = ContinuousClock.now
            var pending: [Int16] = []
            var used = 0  // of `pending`
            var ended = false
            while !done() {
                if pending.count - used < period && !ended {
                    let piece: [Int16]?
                    do { piece = try wav.next() } catch { throw HeedError(error) }
                    pending.removeFirst(used)
                    used = 0
                    if let piece { pending += piece } else { ended = true }
                    continue
                }
                guard used < pending.count else { break }
                let end = min(pending.count, used + min(period, maxFrames.map { $0 - frames } ?? period))
                pending.withUnsafeBufferPointer { ring.write(UnsafeBufferPointer(rebasing: $0[used..<end])) }
                frames += end - used
                used = end
                let due = start + .microseconds(Int64(frames) * 1_000_000 / Int64(rate))
                let now = ContinuousClock.now
                if due > now { Thread.sleep(forTimeInterval: Double((due - now).components.attoseconds) * 1e-18 + Double((due - now).components.seconds)) }
            }
        }
    }
}

extension Listener {
    /// Live events as an `AsyncSequence`: listening runs on its own thread until the input ends,
    /// an error stops it, or the consumer stops iterating.
    ///
    /// ```swift
    /// for await event in Listener.events(source: .device(name: "default", microphone: mic), speech: speech) {
    ///     if case .utterance(let u) = event, let intent = u.intent { act(on: intent) }
    /// }
    /// ```
    public static func events(source: LiveSource, vocabulary: Vocabulary = .commands(.builtins), options: RecognizerOptions = .init(),
                              speech: Authorization, bufferSeconds: Double = 2, maxSeconds: Double? = nil,
                              shortcuts: ShortcutStore? = nil) -> AsyncStream<ListenEvent> {
        let (stream, continuation) = AsyncStream<ListenEvent>.makeStream(bufferingPolicy: .unbounded)
        let cancelled = Atomic<Bool>(false)
        continuation.onTermination = { _ in cancelled.store(true, ordering: .relaxed) }
        let thread = Thread {
            do {
                let recognizer = try CommandRecognizer(vocabulary: vocabulary, options: options, authorization: speech)
                try Listener(source: source, recognizer: recognizer, bufferSeconds: bufferSeconds, maxSeconds: maxSeconds, shortcuts: shortcuts)
                    .run(shouldStop: { cancelled.load(ordering: .relaxed) }) { continuation.yield($0) }
            } catch {
                let failure = error as? HeedError ?? HeedError(.internalFailure, "\(error)")
                continuation.yield(.stopped(error: failure, seconds: 0, droppedSamples: 0, deviceOverruns: 0))
            }
            continuation.finish()
        }
        thread.name = "heed-listener"
        thread.start()
        return stream
    }
}
