import Dispatch
import Foundation
import HeedAudio
import HeedAuthorization
import Synchronization

/// How a recording is changed before decoding, to measure robustness.
public enum SuiteCondition: Hashable, Sendable, CustomStringConvertible {
    case clean
    /// Noise (a name the runner's `noises` knows) mixed in at this SNR in dB; with `room`, over
    /// the speech as heard in that room (`reverb(room)`'s room, and this noise's own offset).
    case noise(String, snr: Double, room: Double? = nil)
    /// One of the runner's noises per file at this SNR, in turn: file N of a suite gets the noise
    /// at (N + SNR) modulo their number in name order, so every noise is heard under as many
    /// files, and at each SNR under different ones (`SuiteRunner.rotatedNoise`).
    case rotatedNoise(snr: Double)
    /// Played this many times faster.
    case speed(Double)
    /// Louder or quieter by this many dB.
    case gain(Double)
    /// Heard in a room whose reverberation time (RT60) is this many seconds.
    case reverb(Double)

    public var description: String {
        switch self {
        case .clean: return "clean"
        case .noise(let name, let snr, nil): return "\(name) @ \(Self.number(snr)) dB"
        case .noise(let name, let snr, let room?): return "\(name) @ \(Self.number(snr)) dB, reverb \(Self.number(room)) s"
        case .rotatedNoise(let snr): return "noises in turn @ \(Self.number(snr)) dB"
        case .speed(let factor): return "speed x\(Self.number(factor))"
        case .gain(let decibels): return "gain \(decibels > 0 ? "+" : "")\(Self.number(decibels)) dB"
        case .reverb(let seconds): return "reverb \(Self.number(seconds)) s"
        }
    }

    /// "12" for 12.0, "0.9" for 0.9.
    public static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// The outcome of one recording under one condition.
public struct CaseResult: Sendable {
    public var suite: Int
    public var entry: Int
    public var condition: Int
    /// Every utterance found, understood or not.
    public var utterances: [Utterance]
    /// Why the file could not be scored (unreadable, broken entry).
    public var error: String?
    /// CPU time the decoding thread spent on this file, and the file's length.
    public var cpuSeconds: Double
    public var audioSeconds: Double
    /// The questions a dialogue asked, in order (slot names, or `confirm`).
    public var prompts: [String] = []
    /// The noise mixed in, by name (nil: none).
    public var noise: String?
    /// How each utterance was decided (`CommandRecognizer.onExplanation`), when the run was asked
    /// to explain (`SuiteRunner.explains`); empty otherwise.
    public var explanation: [String] = []

    public var understood: [Utterance] { utterances.filter(\.understood) }
}

/// Runs suites through the full recognition pipeline on several threads, under each condition.
public struct SuiteRunner: Sendable {
    public var suites: [TestSuite]
    public var conditions: [SuiteCondition]
    /// Noise recordings by name, at the model's rate (see `loadNoise`).
    public var noises: [String: [Float]]
    public var options: RecognizerOptions
    /// Decoding threads; each holds its own decoder (about 60 MB).
    public var jobs: Int
    /// When set, every perturbed recording is also written here as a WAV
    /// (`<condition>/<suite>/<file>`), so a person can listen to what was tested.
    public var keepAudio: URL?
    /// What each noise condition's SNR is measured against (see `Perturbation.SpeechLevel`).
    public var speechLevel: Perturbation.SpeechLevel = .loudestQuarter
    /// Whether each file's results carry the account of how they were decided (`CaseResult.explanation`).
    public var explains = false

    public init(suites: [TestSuite], conditions: [SuiteCondition] = [.clean], noises: [String: [Float]] = [:],
                options: RecognizerOptions = .init(), jobs: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.suites = suites
        self.conditions = conditions
        self.noises = noises
        self.options = options
        self.jobs = max(1, jobs)
    }

    /// A noise recording converted to mono at `sampleRate`.
    public static func loadNoise(_ url: URL, sampleRate: Int = 16_000) throws(HeedError) -> [Float] {
        let wav: WAVFile
        do { wav = try WAVFile(contentsOf: url) } catch {
            let problem = HeedError(error)
            throw HeedError(problem.kind, "\(url.path): \(problem.message)")
        }
        let samples = Resampler.convert(wav.samples, from: wav.format.sampleRate, to: sampleRate)
        guard Perturbation.level(of: samples) > -90 else { throw HeedError(.badInput, "\(url.path): the noise is silent") }
        return samples
    }

    /// Decodes every entry of every suite under every condition. Throws when a suite's
    /// vocabulary cannot be loaded or permission is withdrawn; problems with single files are
    /// results, not errors. `progress` is called from the decoding threads.
    public func run(authorization: Authorization, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) throws(HeedError) -> SuiteReport {
        var suites = suites
        var vocabularies: [Vocabulary] = []
        let pool = RecognizerPool()
        for index in suites.indices {
            let vocabulary = try suites[index].loadVocabulary()
            vocabularies.append(vocabulary)
            // Built here, on the calling thread, so a broken context stops the run before it starts.
            pool.checkIn(try CommandRecognizer(vocabulary: vocabulary, options: options, authorization: authorization), suite: index)
        }
        for condition in conditions {
            if case .noise(let name, _, _) = condition, noises[name] == nil { throw HeedError(.configuration, "no noise named '\(name)' was loaded") }
        }
        let cases = suites.indices.flatMap { suite in
            conditions.indices.flatMap { condition in suites[suite].entries.indices.map { (suite: suite, entry: $0, condition: condition) } }
        }
        let results = Mutex<[CaseResult?]>(Array(repeating: nil, count: cases.count))
        let failure = Mutex<HeedError?>(nil)
        let next = Atomic<Int>(0)
        let done = Atomic<Int>(0)
        let frozenSuites = suites, frozenVocabularies = vocabularies
        DispatchQueue.concurrentPerform(iterations: min(jobs, max(cases.count, 1))) { _ in
            while failure.withLock({ $0 == nil }) {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < cases.count else { return }
                let job = cases[index]
                do throws(HeedError) {
                    let recognizer = try pool.checkOut(suite: job.suite) { () throws(HeedError) in
                        try CommandRecognizer(vocabulary: frozenVocabularies[job.suite], options: options, authorization: authorization)
                    }
                    defer { pool.checkIn(recognizer, suite: job.suite) }
                    let result = try decode(frozenSuites[job.suite], entry: job.entry, condition: conditions[job.condition], with: recognizer)
                    results.withLock { $0[index] = CaseResult(suite: job.suite, entry: job.entry, condition: job.condition,
                                                               utterances: result.utterances, error: result.error,
                                                               cpuSeconds: result.cpu, audioSeconds: result.audio, prompts: result.prompts,
                                                               noise: noiseName(for: conditions[job.condition], entry: job.entry),
                                                               explanation: result.explanation) }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                    return
                }
                progress?(done.add(1, ordering: .relaxed).newValue, cases.count)
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return SuiteReport(suites: frozenSuites, conditions: conditions, results: results.withLock { $0.compactMap { $0 } },
                           speechLevel: speechLevel)
    }

    /// One file under one condition. Throws only for what must stop the whole run (permission).
    private func decode(_ suite: TestSuite, entry index: Int, condition: SuiteCondition,
                        with recognizer: CommandRecognizer) throws(HeedError) -> (utterances: [Utterance], error: String?, cpu: Double,
                                                                                  audio: Double, prompts: [String], explanation: [String]) {
        let entry = suite.entries[index]
        if let problem = entry.problem { return ([], problem, 0, 0, [], []) }
        let rate = recognizer.sampleRate
        var samples: [Float] = []
        do {
            for (index, name) in entry.recordings.enumerated() {
                let wav = try WAVFile(contentsOf: suite.directory.appendingPathComponent(name))
                if index > 0 { samples += [Float](repeating: 0, count: rate / 2) }  // a pause between turns
                samples += Resampler.convert(wav.samples, from: wav.format.sampleRate, to: rate)
            }
        } catch {
            return ([], HeedError(error).message, 0, 0, [], [])
        }
        let mixed: SuiteCondition
        if case .rotatedNoise(let snr) = condition, let name = noiseName(for: condition, entry: index) {
            mixed = .noise(name, snr: snr)
        } else {
            mixed = condition
        }
        samples = Self.perturbed(samples, by: mixed, file: "\(suite.name)/\(entry.file)", noises: noises, sampleRate: rate,
                                 speechLevel: speechLevel)
        if let keepAudio, condition != .clean {
            let folder = keepAudio.appendingPathComponent(condition.description.replacingOccurrences(of: " ", with: ""))
                .appendingPathComponent(suite.name)
            let name = entry.file.replacingOccurrences(of: "../", with: "")
            let target = folder.appendingPathComponent(name.lowercased().hasSuffix(".wav") ? name : name + ".wav")
            try? FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? WAVFile.encode(samples: PCM.int16(from: samples), sampleRate: rate).write(to: target)
        }
        let explanation = ExplanationLines()
        if explains { recognizer.onExplanation = { explanation.lines.append($0) } }
        defer { recognizer.onExplanation = nil }
        let started = Self.threadCPUTime()
        do {
            let outcome = Self.outcome(of: try recognizer.recognizeEvents(samples: PCM.int16(from: samples)))
            return (outcome.utterances, nil, Self.threadCPUTime() - started, Double(samples.count) / Double(rate), outcome.prompts,
                    explanation.lines)
        } catch where error.kind == .permission {
            throw error
        } catch {
            return ([], error.message, 0, 0, [], explanation.lines)
        }
    }

    /// The noise `condition` mixes into entry `entry` of a suite (nil: none).
    func noiseName(for condition: SuiteCondition, entry: Int) -> String? {
        switch condition {
        case .noise(let name, _, _): return name
        case .rotatedNoise(let snr):
            let names = noises.keys.sorted()
            guard !names.isEmpty else { return nil }
            return names[(entry + Int(snr.rounded()) % names.count + names.count) % names.count]
        default: return nil
        }
    }

    /// What a file's events amount to. Without a dialogue, its utterances. With one, each
    /// exchange counts as one utterance: the completed intent over all its turns, or not
    /// understood when it was abandoned; and the questions asked.
    static func outcome(of events: [UtteranceStream.Event]) -> (utterances: [Utterance], prompts: [String]) {
        let dialogue = events.contains { if case .dialogue = $0 { true } else { false } }
        var utterances: [Utterance] = [], prompts: [String] = [], turns: [Utterance] = []
        for event in events {
            switch event {
            case .utterance(let utterance):
                if !dialogue { utterances.append(utterance) } else if utterance.understood { turns.append(utterance) }
            case .dialogue(.prompt(let prompt), _):
                prompts.append(prompt.slot ?? "confirm")
            case .dialogue(.completed(let intent), _):
                utterances.append(Utterance(start: turns.first?.start ?? 0, end: turns.last?.end ?? 0,
                                            transcript: turns.map(\.transcript).joined(separator: " / "), intent: intent,
                                            understood: true, confidence: turns.map(\.confidence).min() ?? 0))
                turns = []
            case .dialogue(.aborted, _):
                utterances.append(Utterance(start: turns.first?.start ?? 0, end: turns.last?.end ?? 0, transcript: "", intent: nil,
                                            understood: false, confidence: 0))
                turns = []
            case .speechStart, .partial:
                break
            }
        }
        return (utterances, prompts)
    }

    /// FNV-1a: the same text gives the same seed in every run (Swift's Hasher is seeded per process).
    /// `samples` of the suite file `file` ("suite/file") under `condition`, with `noises` (by
    /// name) to mix in. Seeded by file and condition: a noise in a room is the room of that
    /// reverb condition and the noise offset of that noise condition, so the three compare file
    /// for file.
    static func perturbed(_ samples: [Float], by condition: SuiteCondition, file: String, noises: [String: [Float]],
                          sampleRate rate: Int, speechLevel: Perturbation.SpeechLevel = .loudestQuarter) -> [Float] {
        let seed = { (condition: SuiteCondition) in stableHash("\(file)|\(condition)") }
        switch condition {
        case .clean: return samples
        case .noise(let name, let snr, let room):
            let roomed = room.map { Perturbation.reverberate(samples, rt60: $0, sampleRate: rate, seed: seed(.reverb($0))) } ?? samples
            return Perturbation.mix(speech: roomed, noise: noises[name] ?? [], snr: snr, sampleRate: rate, seed: seed(.noise(name, snr: snr)),
                                     against: speechLevel)
        case .rotatedNoise: return samples  // resolved to one `.noise` per file by `decode`
        case .speed(let factor): return Perturbation.speed(samples, by: factor, sampleRate: rate)
        case .gain(let decibels): return Perturbation.gain(samples, decibels: decibels)
        case .reverb(let seconds): return Perturbation.reverberate(samples, rt60: seconds, sampleRate: rate, seed: seed(condition))
        }
    }

    static func stableHash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// The lines one file's decoding explained, gathered on its decoding thread.
private final class ExplanationLines {
    var lines: [String] = []
}

/// Idle recognizers per suite. A recognizer is used by one thread at a time: checked out,
/// used, checked back in. The lock guards only the lists.
private final class RecognizerPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [Int: [CommandRecognizer]] = [:]

    func checkOut(suite: Int, orMake make: () throws(HeedError) -> CommandRecognizer) throws(HeedError) -> CommandRecognizer {
        let reused: CommandRecognizer? = lock.withLock { idle[suite]?.popLast() }
        if let reused { return reused }
        return try make()
    }

    func checkIn(_ recognizer: CommandRecognizer, suite: Int) {
        lock.withLock { idle[suite, default: []].append(recognizer) }
    }
}
