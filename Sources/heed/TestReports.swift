import ArgumentParser
import Foundation
import Heed

/// What a person reads after `heed test`: failures and rates per condition, then (for the first
/// condition) the confusion table and the slowest files, then a table across conditions.
enum TestReportText {
    static let failuresShown = 25

    static func render(_ report: SuiteReport) -> String {
        var out = "suites: " + report.suites.map { "\($0.directory.path) (\($0.entries.count) files)" }.joined(separator: ", ") + "\n"
        if report.mixesNoise {
            out += "snr: noise against " + (report.speechLevel == .active ? "the active speech level (ITU-T P.56)"
                                                                          : "the loudest quarter of the speech's 20 ms frames") + "\n"
        }
        for (index, condition) in report.conditions.enumerated() {
            out += "== \(condition)\n"
            // A failure, then how it was decided (`--explain`).
            let problems = report.results.filter { $0.condition == index }.compactMap { result -> [String]? in
                switch report.verdict(of: result) {
                case .passed: return nil
                case .failed(let why): return ["  FAIL  \(label(result, in: report)): \(why)"] + result.explanation.map { "        " + $0 }
                case .error(let why): return ["  ERROR \(label(result, in: report)): \(why)"]
                }
            }
            for problem in problems.prefix(failuresShown) { out += problem.joined(separator: "\n") + "\n" }
            if problems.count > failuresShown { out += "  ... and \(problems.count - failuresShown) more (--json has them all)\n" }
            out += summary(report.scores(condition: index)) + "\n"
        }
        if !report.conditions.isEmpty {
            out += confusionTable(report.confusion(condition: 0), condition: report.conditions[0].description)
            out += slowest(report, condition: 0)
        }
        if report.conditions.count > 1 { out += sweepTable(report) }
        return out
    }

    /// "coffee/order.wav"; for files outside the suite, the suite and the file's own folder.
    static func label(_ result: CaseResult, in report: SuiteReport) -> String {
        let file = report.entry(of: result).file
        let shown = file.hasPrefix("../") ? URL(fileURLWithPath: file).pathComponents.suffix(2).joined(separator: "/") : file
        return "\(report.suites[result.suite].name)/\(shown)"
    }

    static func summary(_ s: SuiteReport.Scores) -> String {
        var line = "accepted \(ratio(s.accepted, s.positives)), false acceptance \(ratio(s.falseAcceptances, s.negatives)), "
            + "false rejection \(ratio(s.falseRejections, s.positives)), wrong \(ratio(s.wrongResults, s.positives))"
        if let wer = s.wordErrorRate { line += ", WER \(percent(wer)) %" }
        if s.otherFailures > 0 { line += ", \(s.otherFailures) negatives with the wrong questions" }
        return line + ", \(s.errors) entries with errors"
    }

    static func ratio(_ count: Int, _ total: Int) -> String {
        total > 0 ? "\(count)/\(total) (\(percent(Double(count) / Double(total))) %)" : "0/0"
    }

    static func percent(_ share: Double) -> String {
        let tenths = Int((share * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    static func confusionTable(_ table: [String: [String: Int]], condition: String) -> String {
        guard !table.isEmpty else { return "" }
        let rows = table.keys.sorted(by: labelOrder)
        let columns = Set(table.values.flatMap(\.keys)).union(rows).sorted(by: labelOrder)
        let width = max(6, columns.map(\.count).max() ?? 0) + 1
        let first = max(10, rows.map(\.count).max() ?? 0) + 3
        var out = "confusion, expected (rows) against understood (columns), \(condition):\n"
        out += pad("", first) + columns.map { padLeft($0, width) }.joined() + "\n"
        for row in rows {
            out += pad("  " + row, first) + columns.map { padLeft(table[row]?[$0].map(String.init) ?? ".", width) }.joined() + "\n"
        }
        return out
    }

    /// Intents alphabetically, "(none)" last.
    static func labelOrder(_ a: String, _ b: String) -> Bool {
        (a == SuiteReport.nothing ? 1 : 0, a) < (b == SuiteReport.nothing ? 1 : 0, b)
    }

    static func slowest(_ report: SuiteReport, condition: Int, count: Int = 5) -> String {
        let timed = report.results.filter { $0.condition == condition && $0.audioSeconds > 0 }
            .sorted { $0.cpuSeconds / $0.audioSeconds > $1.cpuSeconds / $1.audioSeconds }
        guard !timed.isEmpty else { return "" }
        var out = "slowest files (CPU seconds per audio second):\n"
        for result in timed.prefix(count) {
            out += "  \(fixed(result.cpuSeconds / result.audioSeconds, 3))  \(label(result, in: report))  (\(fixed(result.audioSeconds, 1)) s)\n"
        }
        return out
    }

    static func sweepTable(_ report: SuiteReport) -> String {
        let names = report.conditions.map(\.description)
        let first = max(12, names.map(\.count).max() ?? 0) + 2
        var out = pad("condition", first) + pad("accepted", 18) + pad("false accept", 18) + pad("false reject", 18) + pad("wrong", 18) + pad("WER", 9) + "CPU/audio\n"
        for (index, name) in names.enumerated() {
            let s = report.scores(condition: index)
            out += pad(name, first)
                + pad("\(s.accepted)/\(s.positives)  \(percent(s.acceptance)) %", 18)
                + pad("\(s.falseAcceptances)/\(s.negatives)  \(percent(s.falseAcceptance)) %", 18)
                + pad("\(s.falseRejections)/\(s.positives)  \(percent(s.falseRejection)) %", 18)
                + pad("\(s.wrongResults)/\(s.positives)  \(percent(s.wrongResult)) %", 18)
                + pad(s.wordErrorRate.map { "\(percent($0)) %" } ?? "-", 9)
                + (s.audioSeconds > 0 ? fixed(s.cpuSeconds / s.audioSeconds, 3) : "-") + "\n"
        }
        return out
    }

    static func fixed(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
    static func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count) }
    static func padLeft(_ text: String, _ width: Int) -> String { text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text }
}

/// The whole report for programs: every condition's scores and every file's outcome.
enum TestReportJSON {
    static func render(_ report: SuiteReport) throws -> String {
        let conditions: [[String: Any]] = report.conditions.enumerated().map { index, condition in
            let s = report.scores(condition: index)
            var fields: [String: Any] = [
                "name": condition.description,
                "positives": s.positives, "accepted": s.accepted, "acceptance": s.acceptance,
                "negatives": s.negatives, "falseAcceptances": s.falseAcceptances, "falseAcceptance": s.falseAcceptance,
                "falseRejections": s.falseRejections, "falseRejection": s.falseRejection,
                "wrongResults": s.wrongResults, "wrongResult": s.wrongResult, "otherFailures": s.otherFailures,
                "errors": s.errors, "cpuSeconds": s.cpuSeconds, "audioSeconds": s.audioSeconds,
                "confusion": report.confusion(condition: index),
                "results": report.results.filter { $0.condition == index }.map { result(of: $0, in: report) },
            ]
            switch condition {
            case .clean: fields["kind"] = "clean"
            case .noise(let name, let snr, let room):
                fields["kind"] = "noise"; fields["noise"] = name; fields["snr"] = snr
                fields["speechLevel"] = report.speechLevel.rawValue
                if let room { fields["rt60"] = room }
            case .rotatedNoise(let snr):
                fields["kind"] = "noise"; fields["noise"] = "(in turn)"; fields["snr"] = snr
                fields["speechLevel"] = report.speechLevel.rawValue
            case .speed(let factor): fields["kind"] = "speed"; fields["speed"] = factor
            case .gain(let decibels): fields["kind"] = "gain"; fields["gain"] = decibels
            case .reverb(let seconds): fields["kind"] = "reverb"; fields["rt60"] = seconds
            }
            if let wer = s.wordErrorRate { fields["wordErrorRate"] = wer }
            return fields
        }
        let root: [String: Any] = ["suites": report.suites.map { ["name": $0.name, "path": $0.directory.path, "files": $0.entries.count] },
                                   "conditions": conditions]
        let data = try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func result(of result: CaseResult, in report: SuiteReport) -> [String: Any] {
        let entry = report.entry(of: result)
        var fields: [String: Any] = [
            "suite": report.suites[result.suite].name,
            "file": entry.file,
            "expected": entry.expected.map { expectation -> [String: Any] in
                var fields: [String: Any] = [:]
                if let intent = expectation.intent { fields["intent"] = intent.name; fields["slots"] = intent.slots }
                if let transcript = expectation.transcript { fields["transcript"] = transcript }
                return fields
            },
            "got": result.utterances.map { utterance -> [String: Any] in
                var fields: [String: Any] = ["transcript": utterance.transcript, "understood": utterance.understood,
                                             "confidence": utterance.confidence, "start": utterance.start, "end": utterance.end]
                if let intent = utterance.intent { fields["intent"] = intent.name; fields["slots"] = intent.slots }
                if let detection = utterance.detection { fields["detection"] = DetectionJSON.object(detection) }
                return fields
            },
            "cpuSeconds": result.cpuSeconds,
            "audioSeconds": result.audioSeconds,
        ]
        if let noise = result.noise { fields["noise"] = noise }
        if !result.explanation.isEmpty { fields["explanation"] = result.explanation }
        switch report.verdict(of: result) {
        case .passed: fields["verdict"] = "passed"
        case .failed(let why): fields["verdict"] = "failed"; fields["reason"] = why
        case .error(let why): fields["verdict"] = "error"; fields["reason"] = why
        }
        return fields
    }
}

/// JUnit XML as CI systems read it: a <testsuite> per suite and condition, a <testcase> per file.
/// Tests/HeedCLITests/junit.xsd is the schema it is checked against.
enum TestReportJUnit {
    static func render(_ report: SuiteReport) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        var suitesXML = ""
        var totals = (tests: 0, failures: 0, errors: 0, time: 0.0)
        for (conditionIndex, condition) in report.conditions.enumerated() {
            for (suiteIndex, suite) in report.suites.enumerated() {
                let results = report.results.filter { $0.condition == conditionIndex && $0.suite == suiteIndex }
                var cases = ""
                var failures = 0, errors = 0, time = 0.0
                for result in results {
                    time += result.cpuSeconds
                    let name = escape(report.entry(of: result).file)
                    let head = "    <testcase name=\"\(name)\" classname=\"\(escape("\(suite.name).\(condition)"))\" time=\"\(seconds(result.cpuSeconds))\""
                    switch report.verdict(of: result) {
                    case .passed:
                        cases += head + "/>\n"
                    case .failed(let why):
                        failures += 1
                        cases += head + ">\n      <failure message=\"\(escape(why))\" type=\"mismatch\">\(escape(why))</failure>\n    </testcase>\n"
                    case .error(let why):
                        errors += 1
                        cases += head + ">\n      <error message=\"\(escape(why))\" type=\"unreadable\">\(escape(why))</error>\n    </testcase>\n"
                    }
                }
                totals.tests += results.count
                totals.failures += failures
                totals.errors += errors
                totals.time += time
                suitesXML += "  <testsuite name=\"\(escape("\(suite.name) (\(condition))"))\" tests=\"\(results.count)\" failures=\"\(failures)\" "
                    + "errors=\"\(errors)\" skipped=\"0\" time=\"\(seconds(time))\">\n" + cases + "  </testsuite>\n"
            }
        }
        out += "<testsuites name=\"heed test\" tests=\"\(totals.tests)\" failures=\"\(totals.failures)\" errors=\"\(totals.errors)\" time=\"\(seconds(totals.time))\">\n"
        return out + suitesXML + "</testsuites>\n"
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n", "\t": out += " "
            // Control characters are not allowed in XML 1.0 at all.
            case _ where scalar.value < 0x20: out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// An SVG chart: acceptance (solid) and false acceptance (dashed) per noise against SNR, with
/// the clean figures as the leftmost point; speed and gain sweeps as their own series.
enum TestReportPlot {
    struct Series {
        var name: String
        var points: [(x: String, acceptance: Double, falseAcceptance: Double?)]
    }

    static func series(_ report: SuiteReport) -> (xs: [String], series: [Series]) {
        let clean = report.conditions.firstIndex(of: .clean).map { report.scores(condition: $0) }
        func point(_ label: String, _ s: SuiteReport.Scores) -> (x: String, acceptance: Double, falseAcceptance: Double?) {
            (label, s.acceptance, s.negatives > 0 ? s.falseAcceptance : nil)
        }
        // `fromClean`: the series starts at the clean run (a noise, the rooms), not a noise in a
        // room, which starts from its room.
        var groups: [(name: String, points: [(Double, SuiteReport.Scores)], unit: String, fromClean: Bool)] = []
        for (index, condition) in report.conditions.enumerated() {
            let (name, value, unit, fromClean): (String, Double, String, Bool)
            switch condition {
            case .clean: continue
            case .noise(let noise, let snr, nil): (name, value, unit, fromClean) = (noise, snr, " dB", true)
            case .noise(let noise, let snr, let room?):
                (name, value, unit, fromClean) = ("\(noise), reverb \(SuiteCondition.number(room)) s", snr, " dB", false)
            case .rotatedNoise(let snr): (name, value, unit, fromClean) = ("noises in turn", snr, " dB", true)
            case .speed(let factor): (name, value, unit, fromClean) = ("speed", factor, "x", false)
            case .gain(let decibels): (name, value, unit, fromClean) = ("gain", decibels, " dB gain", false)
            case .reverb(let seconds): (name, value, unit, fromClean) = ("reverb", seconds, " s RT60", true)
            }
            if let at = groups.firstIndex(where: { $0.name == name }) {
                groups[at].points.append((value, report.scores(condition: index)))
            } else {
                groups.append((name, [(value, report.scores(condition: index))], unit, fromClean))
            }
        }
        var xs: [String] = clean != nil ? ["clean"] : []
        var series: [Series] = []
        for group in groups {
            // SNR falls and reverberation grows to the right; speed and gain in the order given.
            let sorted = group.unit == " dB" ? group.points.sorted { $0.0 > $1.0 }
                : group.unit == " s RT60" ? group.points.sorted { $0.0 < $1.0 } : group.points
            var points = sorted.map { point(SuiteCondition.number($0.0) + group.unit, $0.1) }
            if let clean, group.fromClean { points.insert(point("clean", clean), at: 0) }
            for p in points where !xs.contains(p.x) { xs.append(p.x) }
            series.append(Series(name: group.name, points: points))
        }
        if series.isEmpty, let clean { series = [Series(name: "clean", points: [point("clean", clean)])] }
        return (xs, series)
    }

    static func render(_ report: SuiteReport) -> String {
        let (xs, series) = series(report)
        let width = 640.0, height = 400.0, left = 60.0, right = 150.0, top = 30.0, bottom = 50.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
        func x(_ label: String) -> Double {
            let index = Double(xs.firstIndex(of: label) ?? 0)
            return left + (xs.count > 1 ? plotWidth * index / Double(xs.count - 1) : plotWidth / 2)
        }
        func y(_ share: Double) -> Double { top + plotHeight * (1 - share) }
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        svg += "<text x=\"\(f(left))\" y=\"18\" font-size=\"14\">heed test: acceptance (solid) and false acceptance (dashed)</text>\n"
        for tick in stride(from: 0.0, through: 1.0, by: 0.2) {
            svg += "<line x1=\"\(f(left))\" y1=\"\(f(y(tick)))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y(tick)))\" stroke=\"#ddd\"/>\n"
            svg += "<text x=\"\(f(left - 8))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(Int((tick * 100).rounded())) %</text>\n"
        }
        for label in xs {
            svg += "<text x=\"\(f(x(label)))\" y=\"\(f(top + plotHeight + 20))\" text-anchor=\"middle\">\(TestReportJUnit.escape(label))</text>\n"
        }
        svg += "<line x1=\"\(f(left))\" y1=\"\(f(top + plotHeight))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(top + plotHeight))\" stroke=\"black\"/>\n"
        svg += "<line x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(top + plotHeight))\" stroke=\"black\"/>\n"
        for (index, line) in series.enumerated() {
            let color = colors[index % colors.count]
            let accepted = line.points.map { "\(f(x($0.x))),\(f(y($0.acceptance)))" }.joined(separator: " ")
            svg += "<polyline class=\"acceptance\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(accepted)\"/>\n"
            for p in line.points {
                svg += "<circle cx=\"\(f(x(p.x)))\" cy=\"\(f(y(p.acceptance)))\" r=\"3\" fill=\"\(color)\"><title>\(TestReportJUnit.escape(line.name)) \(TestReportJUnit.escape(p.x)): \(TestReportText.percent(p.acceptance)) %</title></circle>\n"
            }
            let falsePoints = line.points.compactMap { p in p.falseAcceptance.map { "\(f(x(p.x))),\(f(y($0)))" } }
            if !falsePoints.isEmpty {
                svg += "<polyline class=\"false-acceptance\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" stroke-dasharray=\"5,4\" points=\"\(falsePoints.joined(separator: " "))\"/>\n"
            }
            let legendY = top + 20 * Double(index)
            svg += "<line x1=\"\(f(width - right + 15))\" y1=\"\(f(legendY))\" x2=\"\(f(width - right + 40))\" y2=\"\(f(legendY))\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
            svg += "<text x=\"\(f(width - right + 45))\" y=\"\(f(legendY + 4))\">\(TestReportJUnit.escape(line.name))</text>\n"
        }
        return svg + "</svg>\n"
    }
}

/// An earlier `--json` report, as far as `--baseline` reads it: each file's verdict per condition.
struct BaselineReport: Decodable {
    struct Condition: Decodable {
        let name: String
        let results: [Result]
    }
    struct Result: Decodable {
        let suite: String
        let file: String
        let verdict: String
        let reason: String?
    }
    let conditions: [Condition]

    /// Reads `path`, or says in one line why it cannot be compared against (exit 66: cannot be
    /// opened; 65: not a report that `heed test --json` wrote).
    static func load(_ path: String) throws -> BaselineReport {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            Terminal.error("\(path): " + (!exists ? "no such file" : isDirectory.boolValue ? "is a directory" : "cannot be read") + " (the baseline)")
            throw ExitCode(66)
        }
        do { return try JSONDecoder().decode(BaselineReport.self, from: data) } catch {
            Terminal.error("\(path): not a report written by `heed test --json` (\(Self.describe(error)))")
            throw ExitCode(65)
        }
    }

    private static func describe(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "no \"\(key.stringValue)\"" + (context.codingPath.isEmpty ? "" : " in " + path(context.codingPath))
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "unexpected value at " + path(context.codingPath)
        case .dataCorrupted?:
            return "not valid JSON"
        default:
            return error.localizedDescription
        }
    }

    private static func path(_ keys: [CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: ["."])
    }
}

/// This run against an earlier one (`--baseline`), file for file in each condition both have:
/// which files now fail that passed (regressions), which now pass, and which failed both times
/// with a different result.
enum TestReportComparison {
    struct Outcome {
        var text: String
        var regressions: Int
    }

    static func compare(_ report: SuiteReport, with baseline: BaselineReport, named name: String) -> Outcome {
        var out = "== against the baseline \(name)\n"
        var regressions = 0
        let before = Dictionary(baseline.conditions.map { ($0.name, $0.results) }, uniquingKeysWith: { first, _ in first })
        for (index, condition) in report.conditions.enumerated() {
            let results = report.results.filter { $0.condition == index }
            guard let earlier = before[condition.description] else {
                out += "\(condition): not in the baseline\n"
                continue
            }
            let earlierByFile = Dictionary(earlier.map { ("\($0.suite)/\($0.file)", $0) }, uniquingKeysWith: { first, _ in first })
            var lines: [String] = []
            var passedBefore = 0, passedNow = 0, compared = 0, nowPass = 0, nowFail = 0
            for result in results {
                let entry = report.entry(of: result)
                guard let was = earlierByFile["\(report.suites[result.suite].name)/\(entry.file)"] else { continue }
                compared += 1
                let label = TestReportText.label(result, in: report)
                let wasPassed = was.verdict == "passed"
                if wasPassed { passedBefore += 1 }
                switch report.verdict(of: result) {
                case .passed:
                    passedNow += 1
                    if !wasPassed { nowPass += 1; lines.append("  now passes  \(label) (before: \(was.reason ?? was.verdict))") }
                case .failed(let why), .error(let why):
                    if wasPassed {
                        nowFail += 1
                        lines.append("  now fails   \(label): \(why) (passed before)")
                    } else if was.reason != why {
                        lines.append("  changed     \(label): \(why) (before: \(shortened(was.reason ?? was.verdict, after: why)))")
                    }
                }
            }
            regressions += nowFail
            var summary = "\(condition): passed \(passedBefore) -> \(passedNow) of \(compared) files in both"
            summary += lines.isEmpty ? ", no file changed" : ", \(nowPass) now pass, \(nowFail) now fail"
            if compared < results.count { summary += "; \(results.count - compared) files not in the baseline" }
            out += summary + "\n" + lines.map { $0 + "\n" }.joined()
        }
        return Outcome(text: out, regressions: regressions)
    }

    /// An earlier reason without the expectation it shares with `now` ("expected stop, got start"
    /// after "expected stop, got done" reads "got start").
    static func shortened(_ earlier: String, after now: String) -> String {
        guard let cut = now.range(of: ", got "), earlier.hasPrefix(now[..<cut.upperBound]) else { return earlier }
        return "got " + earlier.dropFirst(now.distance(from: now.startIndex, to: cut.upperBound))
    }
}

/// The detector's decision as JSON: the evidence, the probability and the threshold (the input
/// `scripts/detector.py` fits the detector on).
enum DetectionJSON {
    static func object(_ detection: Detection) -> [String: Any] {
        let e = detection.evidence
        return ["transcript": e.transcript, "share": e.share, "garbageShare": e.garbageShare, "loopShortfall": e.loopShortfall,
                "garbageShortfall": e.garbageShortfall, "wordLoopShortfall": e.wordLoopShortfall,
                "wordFraction": e.wordFraction, "heldToLanguage": e.heldToLanguage, "words": e.words, "seconds": e.seconds,
                "noisy": e.noisy, "adaptedToNoise": e.adaptedToNoise, "probability": detection.probability, "threshold": detection.threshold]
    }

    static func text(_ detection: Detection) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object(detection), options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
