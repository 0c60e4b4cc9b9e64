import Foundation
import HeedAudio
import HeedCapture

/// Records enrollment sentences from a live source, one utterance per prompt, and teaches each
/// to an `Enrollment` as soon as it is said; a recording that cannot teach (another sentence,
/// too noisy) is asked for again.
public struct EnrollmentRecorder {
    /// What happens as the sentences are recorded, for the person reading them.
    public enum Event: Sendable, Equatable {
        /// Read this sentence now (`number` counts from 1).
        case prompt(number: Int, of: Int, sentence: String)
        /// The sentence was heard and learned from a recording `seconds` long.
        case learned(number: Int, seconds: Double)
        /// The recording could not be used (why), and the same sentence is asked for again.
        case retry(number: Int, why: String)
    }

    public var enrollment: Enrollment
    /// Seconds of quiet that end a sentence (longer than a command's: people pause mid-sentence).
    public var trailingSilence = 0.8
    /// How long to wait for a sentence to start before giving up.
    public var timeout = 20.0
    /// How many times one sentence is asked for before giving up.
    public var attempts = 3

    public init(enrollment: Enrollment) {
        self.enrollment = enrollment
    }

    /// Asks for each of `sentences` in turn and records it from `source` (at most `maxSeconds` of
    /// audio in all). Returns the recordings that were learned, in order (at the model's rate),
    /// for keeping. Throws when the source ends or fails, nothing is said for `timeout` seconds,
    /// audio is lost, or a sentence fails `attempts` times.
    public func record(_ sentences: [String], from source: LiveSource, maxSeconds: Double? = nil,
                       shouldStop: @escaping @Sendable () -> Bool = { false }, onEvent: (Event) -> Void) throws(HeedError) -> [[Int16]] {
        let rate = enrollment.sampleRate
        // Half a minute, so a slow alignment never loses audio; or all of `maxSeconds` (up to ten
        // minutes), so a test device that delivers faster than real time (ALSA's file plugin) can
        // deliver it at once.
        let seconds = min(600, max(30, (maxSeconds ?? 0).rounded(.up)))
        let input = try LiveInput(source: source, rate: rate, bufferSeconds: seconds, maxSeconds: maxSeconds, shouldStop: shouldStop) { _ in }
        input.start()
        defer { input.stop() }

        var configuration = Endpointer.Configuration()
        configuration.sampleRate = rate
        configuration.trailingSilence = trailingSilence
        configuration.maxUtterance = 15
        // Audio since the last sentence ended; `consumed` is how much of it the endpointer has seen.
        var audio: [Int16] = [], consumed = 0
        /// Reads what the capture thread has; false when the input has ended and nothing is left.
        func read() throws(HeedError) -> Bool {
            let inputDone = input.isFinished
            let samples = input.read()
            if input.droppedSamples > 0 { throw HeedError(.unavailable, "audio was lost while recording (the machine was too busy); run heed enroll again") }
            if samples.isEmpty {
                if inputDone {
                    if let error = input.failure { throw error }
                    return false
                }
                usleep(5_000)
                return true
            }
            audio += samples
            return true
        }

        var recordings: [[Int16]] = []
        let frame = configuration.frameLength, tail = rate / 2
        for (index, sentence) in sentences.enumerated() {
            var tries = 0
            while true {
                onEvent(.prompt(number: index + 1, of: sentences.count, sentence: sentence))
                // A fresh endpointer per sentence: its positions count from the start of `audio`.
                var endpointer = Endpointer(configuration: configuration)
                consumed = 0
                var start: Int?, end: Int?
                // Endpoint until the sentence has ended and half a second of quiet after it is in.
                while end == nil || audio.count < end! + tail {
                    if shouldStop() { throw HeedError(.unavailable, "stopped after \(recordings.count) of \(sentences.count) sentences") }
                    while end == nil, consumed + frame <= audio.count {
                        switch endpointer.process(frame: audio[consumed..<consumed + frame]) {
                        case .speechStart(let at): start = at
                        case .speechEnd(let at): end = at
                        case nil: break
                        }
                        consumed += frame
                    }
                    if start == nil, Double(consumed) > timeout * Double(rate) {
                        throw HeedError(.badInput, "heard nothing for \(Int(timeout)) s after asking for sentence \(index + 1); is the microphone on and loud enough?")
                    }
                    if let end, audio.count >= end + tail { break }
                    guard try read() else {
                        if end != nil { break }  // the input is over: the sentence, with what quiet there is after it
                        throw HeedError(.badInput, "the input ended after \(recordings.count) of \(sentences.count) sentences")
                    }
                }
                let from = max(0, start ?? 0), to = min(audio.count, end! + tail)
                let recording = Array(audio[from..<to])
                // What follows belongs to the next sentence.
                audio.removeFirst(to)
                do {
                    try enrollment.add(samples: recording, saying: sentence)
                    recordings.append(recording)
                    onEvent(.learned(number: index + 1, seconds: Double(recording.count) / Double(rate)))
                    break
                } catch where error.kind == .badInput && tries + 1 < attempts {
                    tries += 1
                    onEvent(.retry(number: index + 1, why: error.message))
                }
            }
        }
        return recordings
    }
}
