import ArgumentParser
import Foundation
import Heed

/// Recognizer settings shared by the commands that decode (`recognize`, `test`, `listen`), so a
/// setting tried on one file can be measured on a whole suite. What users change is here; every
/// other setting lives in a `--profile` file (docs/tuning.md). The hidden flags exist for A/B
/// runs in `make accuracy` and `make bench`, and are listed in docs/tuning.md.
struct TuningOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A tuning profile (JSON; docs/tuning.md): any setting it names replaces the default.", valueName: "FILE.json"))
    var profile: String?

    @Option(help: ArgumentHelp("Seconds of silence that end a complete command (default 0.25).", valueName: "SECONDS"))
    var trailingSilence: Double?

    @Option(help: ArgumentHelp("Seconds of silence to wait at a pause when the words so far are not a whole command (default 1; half-way to it when a whole request may go on).", valueName: "SECONDS"))
    var pauseInsideRequest: Double?

    @Option(help: ArgumentHelp("How readily a command is accepted: higher hears more commands, and more that nobody gave (default \(RecognizerOptions().sensitivity)).", valueName: "0..1"))
    var sensitivity: Double?

    @Option(help: ArgumentHelp("Move the model towards the speaker enrolled in this profile (made by `heed enroll`).", valueName: "FILE.json"))
    var speaker: String?

    @Option(help: ArgumentHelp("Write PocketSphinx's own log to this file (default: discarded).", valueName: "FILE"))
    var decoderLog: String?

    // A/B switches for benchmarks (docs/tuning.md); a profile sets these and more.
    @Option(help: ArgumentHelp("Per-word probability of the non-command path.", visibility: .hidden))
    var garbagePenalty: Double?

    @Option(help: ArgumentHelp("The front end's noise suppressor.", valueName: "webrtc|speex|off", visibility: .hidden))
    var noiseSuppressor: NoiseSuppressorName?

    @Flag(help: ArgumentHelp("Decode as plain PocketSphinx's front end would: no noise suppression, masking floor or adaptation.", visibility: .hidden))
    var noFrontEnd = false

    @Option(name: .customLong("decoder-arg"), help: ArgumentHelp("Pass a PocketSphinx argument through, e.g. -beam=1e-60.", valueName: "-NAME=VALUE", visibility: .hidden))
    var decoderArguments: [String] = []

    func validate() throws {
        for argument in decoderArguments where !argument.hasPrefix("-") || !argument.contains("=") {
            throw ValidationError("--decoder-arg takes -NAME=VALUE, got '\(argument)'")
        }
        if let sensitivity, !TuningProfile.sensitivityRange.contains(sensitivity) { throw ValidationError("--sensitivity must be between 0 and 1") }
        if let garbagePenalty, !(garbagePenalty > 0 && garbagePenalty <= 1) { throw ValidationError("--garbage-penalty must be in (0, 1]") }
        if let trailingSilence, !TuningProfile.pauseRange.contains(trailingSilence) { throw ValidationError("--trailing-silence must be between 0.05 and 5 seconds") }
        if let pauseInsideRequest, !TuningProfile.pauseRange.contains(pauseInsideRequest) { throw ValidationError("--pause-inside-request must be between 0.05 and 5 seconds") }
    }

    /// The settings: the defaults, then the profile, then the flags. A profile or a --speaker
    /// profile that cannot be read ends the command (66 missing, 65 not valid).
    func options() throws -> RecognizerOptions {
        var options = RecognizerOptions()
        if let profile {
            do throws(HeedError) { options = try TuningProfile(contentsOf: URL(fileURLWithPath: profile)).applied(to: options) } catch {
                throw error.exit()
            }
        }
        // The flags are a profile of their own, applied over the file's.
        var flags = TuningProfile()
        flags.trailingSilence = trailingSilence
        flags.pauseInsideRequest = pauseInsideRequest
        flags.garbageWordPenalty = garbagePenalty
        flags.sensitivity = sensitivity
        flags.noiseSuppressor = noiseSuppressor?.rawValue
        if noFrontEnd {
            flags.noiseSuppressor = NoiseSuppressorName.off.rawValue
            flags.maskingNoiseBelowPeakDB = 0
            flags.noiseAdaptation = false
        }
        flags.decoderArguments = Dictionary(decoderArguments.map { argument in
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts[1])
        }, uniquingKeysWith: { _, last in last })
        options = flags.applied(to: options)
        if let speaker { options.speaker = try SpeakerProfileFile.read(speaker) }
        if let decoderLog { options.decoder.logFile = URL(fileURLWithPath: decoderLog) }
        return options
    }
}

extension NoiseSuppressorName: ExpressibleByArgument {}

enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off
}
