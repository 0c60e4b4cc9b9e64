import ArgumentParser
import Foundation
import Heed
import HeedAudio

struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run recorded-WAV regression suites; write a manifest for new recordings.",
        subcommands: [RunSuites.self, NewSuite.self],
        defaultSubcommand: RunSuites.self
    )
}

/// `heed test SUITE...`
struct RunSuites: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run recorded-WAV regression suites and report acceptance, false acceptance and WER.",
        discussion: """
            A suite is a directory with WAV files and a suite.yml naming the contexts to load \
            and, per file, the intent and slots each utterance must give, a transcript, or \
            understood: false (see `heed test new`). Every file goes through the same pipeline \
            as `heed recognize` (the permission gate included), on all cores.

            Sweeps decode every file again under each condition: --noise mixes a noise \
            recording in at each --snr (speech level measured on the loudest frames, or as \
            ITU-T P.56's active level with --speech-level active; the noise \
            from a random offset with a fixed seed, so runs repeat exactly); --reverb plays it \
            in a synthetic room (seeded the same way), and with --noise also runs each noise \
            condition in each room; --speed and --gain perturb the recording. A table gives \
            the rates per condition; --plot draws them.

            Exit 0 when, in every condition, every expectation holds, or acceptance is at least \
            --min-accept and false acceptance at most --max-false-accept, and (with --baseline) \
            no file that passed in the earlier report fails now; 1 otherwise.

            Examples:
              heed test Audio/builtins Audio/coffee
              heed test Audio/coffee --min-accept 0.85 --junit report.xml
              heed test Audio/builtins --noise Audio/noise/babble.wav --snr 24,12,6 --plot snr.svg
              heed test Audio/coffee --json before.json; heed test Audio/coffee --baseline before.json
            """
    )

    @Argument(help: "Suite directories.") var suites: [String]

    @Option(help: ArgumentHelp("Pass when this share of positive expectations is met, even if some fail.", valueName: "0..1"))
    var minAccept: Double?

    @Option(help: ArgumentHelp("Pass only when at most this share of negatives is taken for a command.", valueName: "0..1"))
    var maxFalseAccept: Double?

    @Option(help: ArgumentHelp("Mix this noise recording in (repeatable; needs --snr).", valueName: "FILE.wav"))
    var noise: [String] = []

    // .unconditional: "-5" is a value here, not an option.
    @Flag(help: "With several --noise files, mix one into each file at each --snr, in turn (file N gets noise N + SNR, in name order), instead of every noise into every file.")
    var rotateNoises = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Signal-to-noise ratios to sweep, in dB.", valueName: "DB,DB..."), transform: RunSuites.numbers)
    var snr: [Double] = []

    @Option(help: ArgumentHelp("What --snr measures the speech against: loudest-quarter (default), the loudest quarter of its 20 ms frames; active, ITU-T P.56's active speech level, as Aurora-2 mixed its noise. For a phrase that fills most of its file, active puts the noise about 3 dB lower at the same --snr.", valueName: "loudest-quarter|active"))
    var speechLevel: Perturbation.SpeechLevel?

    @Option(help: ArgumentHelp("Playback speeds to sweep (0.9 is 10 % slower).", valueName: "X,X..."), transform: RunSuites.numbers)
    var speed: [Double] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Gains to sweep, in dB.", valueName: "DB,DB..."), transform: RunSuites.numbers)
    var gain: [Double] = []

    @Option(help: ArgumentHelp("Reverberation times (RT60) to sweep, in seconds: the recording as heard in a room whose echo dies away 60 dB in that time (0.3 a furnished living room, 0.6 a kitchen, 1 a bare hall), the talker at about a metre. With --noise, each noise condition is run in each room too.", valueName: "S,S..."), transform: RunSuites.numbers)
    var reverb: [Double] = []

    @Flag(help: "Leave out the unperturbed run when sweeping.")
    var noClean = false

    @Option(help: ArgumentHelp("Decoding threads (default: one per core).", valueName: "N"))
    var jobs: Int?

    @Option(help: ArgumentHelp("Write the whole report as JSON.", valueName: "FILE"))
    var json: String?

    @Option(help: ArgumentHelp("Compare with an earlier run's --json report, file for file: list the files that now fail, now pass, or fail differently. A file that passed there and fails now makes the run fail.", valueName: "FILE.json"))
    var baseline: String?

    @Option(help: ArgumentHelp("Write a JUnit XML report (one test case per file and condition).", valueName: "FILE"))
    var junit: String?

    @Option(help: ArgumentHelp("Also write each perturbed recording here, to listen to what was tested.", valueName: "DIR"))
    var keepAudio: String?

    @Flag(help: "Under each failure, tell how its utterances were decided (as `heed recognize --explain` does); --json has it for every file.")
    var explain = false

    @Option(help: ArgumentHelp("Draw acceptance and false acceptance per condition as SVG.", valueName: "FILE.svg"))
    var plot: String?

    @Option(name: .customLong("dict"), help: ArgumentHelp("Extra pronunciations in CMUdict format for every suite (repeatable): a word the dictionary has gets them as alternates, to try a pronunciation against recordings.", valueName: "FILE.dict"))
    var dictionaries: [String] = []

    @OptionGroup var tuning: TuningOptions
    @OptionGroup var appOptions: AppOptions

    static func numbers(_ text: String) throws -> [Double] {
        try text.split(separator: ",").map { part in
            guard let value = Double(part.trimmingCharacters(in: .whitespaces)), value.isFinite else {
                throw ValidationError("'\(part)' is not a number")
            }
            return value
        }
    }

    /// Steps of numbers apart by '/' ("0.3,0.5/0.5,0.7"), or none for "off".
    static func floorStepsOrOff(_ text: String) throws -> [[Double]] {
        if text == "off" { return [] }
        return try text.split(separator: "/", omittingEmptySubsequences: false).map { step in
            let values = try numbers(String(step))
            guard !values.isEmpty else { throw ValidationError("'\(text)' is neither 'off' nor steps of numbers apart by '/'") }
            return values
        }
    }

    func validate() throws {
        if let minAccept, !(0...1).contains(minAccept) { throw ValidationError("--min-accept must be between 0 and 1") }
        if let maxFalseAccept, !(0...1).contains(maxFalseAccept) { throw ValidationError("--max-false-accept must be between 0 and 1") }
        if noise.isEmpty != snr.isEmpty { throw ValidationError("--noise and --snr go together") }
        if rotateNoises && noise.count < 2 { throw ValidationError("--rotate-noises needs two or more --noise files") }
        if rotateNoises && !reverb.isEmpty { throw ValidationError("--rotate-noises does not go with --reverb") }
        if speechLevel != nil && noise.isEmpty { throw ValidationError("--speech-level goes with --noise and --snr") }
        if let bad = snr.first(where: { !(-20...80).contains($0) }) { throw ValidationError("--snr \(bad) is outside -20...80 dB") }
        if let bad = speed.first(where: { !(0.5...2).contains($0) }) { throw ValidationError("--speed \(bad) is outside 0.5...2") }
        if let bad = gain.first(where: { !(-60...40).contains($0) }) { throw ValidationError("--gain \(bad) is outside -60...40 dB") }
        if let bad = reverb.first(where: { !(0.05...3).contains($0) }) { throw ValidationError("--reverb \(bad) is outside 0.05...3 seconds") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        let names = noise.map(Self.noiseName)
        if Set(names).count != names.count { throw ValidationError("two --noise files share a name; rename one") }
        if noClean && noise.isEmpty && speed.isEmpty && gain.isEmpty && reverb.isEmpty {
            throw ValidationError("--no-clean needs a sweep (--noise, --speed, --gain or --reverb)")
        }
    }

    static func noiseName(_ path: String) -> String {
        URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    }

    func run() throws {
        // Read before the run: a baseline that cannot be compared against should not cost a sweep first.
        let earlier = try baseline.map(BaselineReport.load)
        let authorization = try appOptions.speechRecognitionAuthorization()
        var conditions: [SuiteCondition] = noClean ? [] : [.clean]
        if rotateNoises {
            conditions += snr.map { .rotatedNoise(snr: $0) }
        } else {
            for path in noise { conditions += snr.map { .noise(Self.noiseName(path), snr: $0) } }
        }
        conditions += speed.map { .speed($0) } + gain.map { .gain($0) } + reverb.map { .reverb($0) }
        // A room and a noise together: every noise condition again in each room.
        for room in reverb {
            for path in noise { conditions += snr.map { .noise(Self.noiseName(path), snr: $0, room: room) } }
        }
        var options = try tuning.options()
        let report: SuiteReport
        do throws(HeedError) {
            let loaded = try suites.map { (path) throws(HeedError) in try TestSuite(directory: URL(fileURLWithPath: path)) }
            var noises: [String: [Float]] = [:]
            for path in noise { noises[Self.noiseName(path)] = try SuiteRunner.loadNoise(URL(fileURLWithPath: path)) }
            options.decoder.extraDictionaries += dictionaries.map { URL(fileURLWithPath: $0) }
            var runner = SuiteRunner(suites: loaded, conditions: conditions, noises: noises, options: options,
                                     jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount)
            runner.keepAudio = keepAudio.map { URL(fileURLWithPath: $0) }
            runner.explains = explain
            runner.speechLevel = speechLevel ?? .loudestQuarter
            let bar = Terminal.stderrIsTerminal ? ProgressBar() : nil
            report = try runner.run(authorization: authorization) { done, total in bar?.show(done, of: total) }
            bar?.clear()
        } catch {
            throw error.exit()
        }
        print(TestReportText.render(report), terminator: "")
        let comparison = earlier.map { TestReportComparison.compare(report, with: $0, named: baseline ?? "") }
        if let comparison { print(comparison.text, terminator: "") }
        do {
            if let json { try TestReportJSON.render(report).write(to: URL(fileURLWithPath: json), atomically: true, encoding: .utf8) }
            if let junit { try TestReportJUnit.render(report).write(to: URL(fileURLWithPath: junit), atomically: true, encoding: .utf8) }
            if let plot { try TestReportPlot.render(report).write(to: URL(fileURLWithPath: plot), atomically: true, encoding: .utf8) }
        } catch {
            Terminal.error("cannot write the report: \(error.localizedDescription)")
            throw ExitCode(73)
        }
        let passed = report.conditions.indices.allSatisfy { index in
            let scores = report.scores(condition: index)
            if scores.allHeld { return true }
            guard minAccept != nil || maxFalseAccept != nil else { return false }
            return scores.acceptance >= (minAccept ?? 1) && scores.falseAcceptance <= (maxFalseAccept ?? 1)
        }
        if !passed || (comparison?.regressions ?? 0) > 0 { throw ExitCode(1) }
    }
}

/// A one-line progress bar on stderr, redrawn in place.
final class ProgressBar: Sendable {
    func show(_ done: Int, of total: Int) {
        let width = 30
        let filled = total > 0 ? width * done / total : width
        Terminal.write("\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(done)/\(total)")
    }

    func clear() { Terminal.write("\r\u{1B}[K") }
}

extension Perturbation.SpeechLevel: ExpressibleByArgument {}
