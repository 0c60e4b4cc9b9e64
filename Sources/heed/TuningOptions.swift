import ArgumentParser
import Foundation
import Heed

/// Recognizer settings shared by the commands that decode files (`recognize`, `test`), so a
/// setting tried on one file can be measured on a whole suite.
struct TuningOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Seconds of silence that end an utterance.", valueName: "SECONDS"))
    var trailingSilence: Double?

    @Option(help: ArgumentHelp("Per-word probability of the non-command path; higher rejects more.", valueName: "P"))
    var garbagePenalty: Double?

    @Option(help: ArgumentHelp("The same for utterances heard through noise (default 1e-4).", valueName: "P"))
    var noisyGarbagePenalty: Double?

    @Option(help: ArgumentHelp("For utterances heard through noise, the probability of leaving a command part-way into the non-command path, so speech that only begins like a command is not forced onto it (1e-3 measured best; off by default: it costs two to three times the CPU in noise); 0 turns it off.", valueName: "P"))
    var noisyGarbageInside: Double?

    @Option(help: ArgumentHelp("Report decoded commands below this confidence as not understood.", valueName: "0..1"))
    var minConfidence: Double?

    @Option(help: ArgumentHelp("The noise suppressor of the front end: webrtc (default), speex (the front end before WebRTC's: raw audio to the endpointer), or off.", valueName: "webrtc|speex|off"))
    var noiseSuppressor: NoiseSuppressorChoice?

    @Option(help: ArgumentHelp("Use speexdsp's suppressor, pushing noise down by at most this many dB (its default is 15); 0 turns suppression off.", valueName: "DB"))
    var noiseSuppression: Int?

    @Option(help: ArgumentHelp("Decode noisy utterances over a floor of low-passed noise this many dB below their loudest part, masking what the suppressor leaves of hum and background talk (default 40); 0 turns it off.", valueName: "DB"))
    var maskingNoise: Double?

    @Option(help: ArgumentHelp("Decode clean utterances over a floor of low-passed noise this many dB below their loudest part, with silence adapted to it, as noisy ones are (default 40; not over a burst of clatter); 0 turns it off. Which utterances: --quiet-floor-for.", valueName: "DB"))
    var quietFloor: Double?

    @Option(help: ArgumentHelp("Which clean utterances are decoded over the quiet floor: doubtful (default), a second opinion when the plain decode heard a command and rejected it or took one below --quiet-floor-doubt, the floor's command kept when surer; or all, every clean utterance over the floor only (about a quarter more CPU in quiet).", valueName: "doubtful|all"))
    var quietFloorFor: QuietFloorUse?

    @Option(help: ArgumentHelp("The confidence below which a command taken by the plain decode is doubtful (default 0.6).", valueName: "0..1"))
    var quietFloorDoubt: Double?

    @Option(help: ArgumentHelp("Adapt the acoustic model to the steady noise of each noisy utterance (default on; not to background talk, and only with the webrtc suppressor).", valueName: "on|off"))
    var noiseAdaptation: Switch?

    @Option(help: ArgumentHelp("Reject a decoded command whose acoustic fit falls short of a free phone loop's by more than this per frame (default 15; sets the two below as well); 0 turns verification off.", valueName: "LOG-UNITS"))
    var verifyMargin: Double?

    @Option(help: ArgumentHelp("The same for utterances heard through noise (default 18; sets the one below as well); 0 turns it off there.", valueName: "LOG-UNITS"))
    var noisyVerifyMargin: Double?

    @Option(help: ArgumentHelp("The same for noisy utterances decoded with the model adapted to their noise (default 16); 0 uses the noisy margin.", valueName: "LOG-UNITS"))
    var adaptedVerifyMargin: Double?

    @Option(help: ArgumentHelp("In steady noise, check a command decoded with the model adapted to the noise and less than this confidence by decoding it again with the model as trained; not understood unless that decode agrees (default 0.25); 0 turns the check off.", valueName: "0..1"))
    var adaptedDoubt: Double?

    @Option(help: ArgumentHelp("On clean utterances over the quiet floor, also reject a verified command when any one of its words falls short of the phone loop by more than this per frame (default 45); 0 turns it off.", valueName: "LOG-UNITS"))
    var wordVerifyMargin: Double?

    @Option(help: ArgumentHelp("Where the speech is too far above the noise to adapt the model to it, still adapt silence and fillers, so what is left of the noise around the words is heard as silence (default on).", valueName: "on|off"))
    var silenceAdaptation: Switch?

    @Option(help: ArgumentHelp("How far a frame may stray from the adapted model where noise dominates, in natural-log units (default 0.5); 0 adapts the means only.", valueName: "LOG-UNITS"))
    var noiseUncertainty: Double?

    @Option(help: ArgumentHelp("Past the speech range where noise adaptation stops (17.4 dB between an utterance's loudest and quietest tenth), fade it out over this many dB more (default 6); 0 stops it at the range.", valueName: "DB"))
    var adaptationFade: Double?

    @Option(help: ArgumentHelp("In a noisy utterance, take a run of decoded words that forms a command as the command when every other word is this many dB below its loudest word and quieter than all of it (background talk; default 6); 0 turns it off.", valueName: "DB"))
    var foregroundWordMargin: Double?

    @Option(help: ArgumentHelp("Take a decoded command only when the stretch it was heard in holds this many seconds of voiced speech (default 0.02; clatter has none); 0 turns the check off.", valueName: "SECONDS"))
    var minVoiced: Double?

    @Option(help: ArgumentHelp("In an utterance with real pauses, reject a decoded command when a stretch taken for silence holds this many seconds of voiced speech: speech the command leaves out (default 0.3); 0 turns the check off.", valueName: "SECONDS"))
    var maxVoicedSilence: Double?

    @Option(help: ArgumentHelp("In noise, decode an utterance that was not understood again together with the next one when the next one's speech begins within this many seconds of the first one's end and is not understood alone; a command found across the pause is taken (a slow phrase's quiet middle can sound like the end of speech). Default 0.5; 0 turns it off.", valueName: "SECONDS"))
    var rejoinGap: Double?

    @Option(help: ArgumentHelp("In noise, when no path took a command, decode the command paths alone and take their command when it fits within this many log units per frame of a free phone loop (default 12); 0 turns it off.", valueName: "LOG-UNITS"))
    var forcedChoiceMargin: Double?

    @Option(help: ArgumentHelp("The share of its N-best list that must agree with that forced choice (default 0.9).", valueName: "0..1"))
    var forcedChoiceConfidence: Double?

    @Option(help: ArgumentHelp("Fit mains hum (50 or 60 Hz and its harmonics) in the pauses and subtract it from the audio, once the pauses repeat at the mains period (default off: it helps with hum at exactly 50 or 60 Hz, and hurts with hum slightly off it).", valueName: "on|off"))
    var mainsHum: Switch?

    @Option(help: ArgumentHelp("When a clean utterance holding a burst of clatter was not understood, decode it again with the burst's frames ignored, so the words around it decide (default on).", valueName: "on|off"))
    var maskBursts: Switch?

    @Option(help: ArgumentHelp("Decode a noisy utterance over background talk through a learned mask that turns the voices behind the speaker down, twice, and take it only when both decodes agree (default on; weights: Models/talk-mask.weights).", valueName: "on|off"))
    var talkMask: Switch?

    @Option(help: ArgumentHelp("The talk mask's weights (default: Models/talk-mask.weights beside heed, made by scripts/talk-mask.py).", valueName: "FILE", visibility: .hidden))
    var talkMaskWeights: String?

    @Option(help: ArgumentHelp("The talk mask's floors, the gain of a bin it hears as background: one decode each, all must agree (default 0.1,0.3).", valueName: "G,G...", visibility: .hidden), transform: RunSuites.numbers)
    var talkMaskFloors: [Double]?

    @Option(help: ArgumentHelp("Decode a noisy utterance in steady broadband noise (a fan, air) through a learned mask that keeps the bins where the voice outweighs the noise, twice, and take it only when both decodes agree (default on; noise mostly below 1 kHz, such as traffic's rumble or mains hum, is left to the suppressor; weights: Models/steady-mask.weights).", valueName: "on|off"))
    var steadyMask: Switch?

    @Option(help: ArgumentHelp("The steady-noise mask's weights (default: Models/steady-mask.weights beside heed, made by scripts/steady-mask.py).", valueName: "FILE", visibility: .hidden))
    var steadyMaskWeights: String?

    @Option(help: ArgumentHelp("The steady-noise mask's floors, the gain of a bin it hears as noise: one decode each, all must agree (default 0.1,0.3).", valueName: "G,G...", visibility: .hidden), transform: RunSuites.numbers)
    var steadyMaskFloors: [Double]?

    @Option(help: ArgumentHelp("The steady-noise mask leaves noise with less than this share of its power above 1 kHz (brown noise, mains hum) to the suppressor (default 0.3; 0: every steady noise goes through the mask).", valueName: "F", visibility: .hidden))
    var steadyMaskMinHighBand: Double?

    @Option(help: ArgumentHelp("Noise below 1 kHz that is not mains hum still goes through the steady-noise mask when the voice stands less than this many dB above it (default 13, between the suites' 10 and 12 dB; 0: never).", valueName: "DB", visibility: .hidden))
    var steadyMaskLowBandBelowSnr: Double?

    @Option(help: ArgumentHelp("What the talk mask's copies must agree on: the same command, in other words too at confidence 0.4 or more unless a copy's command came from the forced choice alone (default), or the same words.", valueName: "meaning|words", visibility: .hidden))
    var talkMaskAgreement: MaskAgreement?

    @Option(help: ArgumentHelp("When the talk mask's copies disagree but every copy sounds noisy, take the command only one of them heard if a search took it at least C sure (default 0.9; off: the copies must agree).", valueName: "C|off", visibility: .hidden))
    var talkMaskLoneCopy: ConfidenceOrOff?

    @Option(help: ArgumentHelp("When the talk mask's copies disagree in strong background talk, take the command one of them heard at least C sure if every other copy's forced choice named it and was refused (default 0.9; off: never).", valueName: "C|off", visibility: .hidden))
    var talkMaskForcedConfirmation: ConfidenceOrOff?

    @Option(help: ArgumentHelp("The talk mask's floors for milder background talk, steps apart by '/': while the copy at the first floor of the next step sounds clean, that step's copies decide instead of --talk-mask-floors (default 0.3,0.5/0.5,0.7; off: always --talk-mask-floors).", valueName: "G,G.../G,G...|off", visibility: .hidden), transform: RunSuites.floorStepsOrOff)
    var talkMaskMildFloors: [[Double]]?

    @Option(help: ArgumentHelp("Whether an utterance that sounds clean goes through the talk mask too when the noise under it changes like background talk (default on).", valueName: "on|off", visibility: .hidden))
    var talkMaskCleanUtterances: Switch?

    @Option(help: ArgumentHelp("What the steady-noise mask's copies must agree on: the same command, in other words too at confidence 0.4 or more (default), or the same words.", valueName: "meaning|words", visibility: .hidden))
    var steadyMaskAgreement: MaskAgreement?

    @Option(help: ArgumentHelp("When the steady-noise mask's copies disagree and one heard a command, decode the utterance once more unmasked and take the command it shares with a copy if the lower of their confidences is at least C (default off).", valueName: "C|off", visibility: .hidden))
    var steadyMaskTieBreak: ConfidenceOrOff?

    @Option(help: ArgumentHelp("Hold an utterance that goes through the steady-noise mask open until this many seconds of silence, so the mask hears the weak last consonant the endpointer cut off (default 0.35; the end reported is the same, the result comes later); 0 uses --trailing-silence.", valueName: "SECONDS", visibility: .hidden))
    var steadyMaskTrailingSilence: Double?

    @Option(help: ArgumentHelp("Hold utterances open (--steady-mask-trailing-silence) only in broadband noise with the voice less than this many dB above it (default 17, between the suites' 12 and 18 dB); 0: in all broadband noise the mask hears.", valueName: "DB", visibility: .hidden))
    var steadyMaskHoldBelowSnr: Double?

    @Option(help: ArgumentHelp("Probability of hearing a command word as other accents say it, against the dictionary's General American (default 0.1): without the r after a vowel (British \"start\"; said again before a vowel, \"temperature in\"), with an open stressed vowel (\"done\" as \"dahn\"), with the yod (\"resume\" as \"rezyoom\"), with the BATH vowel (\"bathroom\" as \"bahthroom\"); 0 hears General American only.", valueName: "P"))
    var accentVariants: Double?

    @Option(help: ArgumentHelp("In noise, also hear a command that is one word alone in an accent's form that is one phone from another one-word command (default off: the r-less \"start\", one consonant from \"stop\", is then heard only as the dictionary spells it; longer phrases and clean speech keep every form).", valueName: "on|off"))
    var confusableVariantsInNoise: Switch?

    @Option(help: ArgumentHelp("The most HMMs the decoder keeps active per frame on a clean utterance; above it the beams narrow (default 500); 0 means no cap.", valueName: "N"))
    var maxActiveHmms: Int?

    @Option(help: ArgumentHelp("The same for utterances heard through noise (default: no cap); 0 means no cap.", valueName: "N"))
    var noisyMaxActiveHmms: Int?

    @Flag(help: "Decode as plain PocketSphinx front end would: no high-pass, no hum cancelling, no noise suppression or adaptation, no re-decoding of a noisy utterance's foreground, of two pieces together, of the commands alone or with a burst ignored, no talk or steady-noise mask, one garbage penalty for all (for comparison).")
    var noFrontEnd = false

    @Flag(help: ArgumentHelp("Score frames with PocketSphinx's own Gaussian evaluation instead of Heed's interleaved one (the same scores, slower; for comparison). It reports no score offsets, so verification then compares fits on two scales, as before Heed's scorer kept them.", visibility: .hidden))
    var stockGaussians = false

    @Option(help: ArgumentHelp("Move the model towards the speaker enrolled in this profile (made by `heed enroll`).", valueName: "FILE.json"))
    var speaker: String?

    @Option(help: ArgumentHelp("Write PocketSphinx's own log to this file (default: discarded).", valueName: "FILE"))
    var decoderLog: String?

    @Option(name: .customLong("decoder-arg"), help: ArgumentHelp("Pass a PocketSphinx argument through, e.g. -beam=1e-60 (for tuning).", valueName: "-NAME=VALUE", visibility: .hidden))
    var decoderArguments: [String] = []

    func validate() throws {
        for argument in decoderArguments where !argument.hasPrefix("-") || !argument.contains("=") {
            throw ValidationError("--decoder-arg takes -NAME=VALUE, got '\(argument)'")
        }
        if let minConfidence, !(0...1).contains(minConfidence) { throw ValidationError("--min-confidence must be between 0 and 1") }
        if let garbagePenalty, !(garbagePenalty > 0 && garbagePenalty <= 1) { throw ValidationError("--garbage-penalty must be in (0, 1]") }
        if let noisyGarbagePenalty, !(noisyGarbagePenalty > 0 && noisyGarbagePenalty <= 1) { throw ValidationError("--noisy-garbage-penalty must be in (0, 1]") }
        if let noisyGarbageInside, !(0...1).contains(noisyGarbageInside) { throw ValidationError("--noisy-garbage-inside must be between 0 (off) and 1") }
        if let noiseSuppression, !(0...60).contains(noiseSuppression) { throw ValidationError("--noise-suppression must be between 0 (off) and 60 dB") }
        if noiseSuppression != nil, noiseSuppressor != nil { throw ValidationError("--noise-suppression sets speexdsp's suppressor; leave out --noise-suppressor") }
        if let foregroundWordMargin, !(0...40).contains(foregroundWordMargin) { throw ValidationError("--foreground-word-margin must be between 0 (off) and 40 dB") }
        if let maskingNoise, !(0...90).contains(maskingNoise) { throw ValidationError("--masking-noise must be between 0 (off) and 90 dB") }
        if let quietFloor, !(0...90).contains(quietFloor) { throw ValidationError("--quiet-floor must be between 0 (off) and 90 dB") }
        if let quietFloorDoubt, !(0...1).contains(quietFloorDoubt) { throw ValidationError("--quiet-floor-doubt must be between 0 and 1") }
        if quietFloorDoubt != nil, quietFloorFor == .all { throw ValidationError("--quiet-floor-doubt is for --quiet-floor-for doubtful; leave it out with all") }
        if let accentVariants, !(0...1).contains(accentVariants) { throw ValidationError("--accent-variants must be between 0 (off) and 1") }
        if let adaptedDoubt, !(0...1).contains(adaptedDoubt) { throw ValidationError("--adapted-doubt must be between 0 (off) and 1") }
        if let adaptedVerifyMargin, !(0...100).contains(adaptedVerifyMargin) { throw ValidationError("--adapted-verify-margin must be between 0 and 100") }
        if let wordVerifyMargin, !(0...200).contains(wordVerifyMargin) { throw ValidationError("--word-verify-margin must be between 0 (off) and 200") }
        if let noiseUncertainty, !(0...5).contains(noiseUncertainty) { throw ValidationError("--noise-uncertainty must be between 0 and 5") }
        if let adaptationFade, !(0...40).contains(adaptationFade) { throw ValidationError("--adaptation-fade must be between 0 (a hard gate) and 40 dB") }
        if let minVoiced, !(0...1).contains(minVoiced) { throw ValidationError("--min-voiced must be between 0 (off) and 1 second") }
        if let maxVoicedSilence, !(0...5).contains(maxVoicedSilence) { throw ValidationError("--max-voiced-silence must be between 0 (off) and 5 seconds") }
        if let rejoinGap, !(0...5).contains(rejoinGap) { throw ValidationError("--rejoin-gap must be between 0 (off) and 5 seconds") }
        if let forcedChoiceMargin, !(0...100).contains(forcedChoiceMargin) { throw ValidationError("--forced-choice-margin must be between 0 (off) and 100") }
        if let forcedChoiceConfidence, !(0...1).contains(forcedChoiceConfidence) { throw ValidationError("--forced-choice-confidence must be between 0 and 1") }
        for (name, value) in [("--max-active-hmms", maxActiveHmms), ("--noisy-max-active-hmms", noisyMaxActiveHmms)] {
            if let value, value < 0 { throw ValidationError("\(name) must be 0 (no cap) or more") }
        }
        for (name, floors) in [("--steady-mask-floors", steadyMaskFloors), ("--talk-mask-floors", talkMaskFloors)] {
            if let floors, floors.isEmpty || !floors.allSatisfy({ (0...1).contains($0) }) {
                throw ValidationError("\(name) takes one or more gains between 0 and 1")
            }
        }
        if let talkMaskMildFloors, !talkMaskMildFloors.joined().allSatisfy({ (0...1).contains($0) }) {
            throw ValidationError("--talk-mask-mild-floors takes 'off' or steps apart by '/' of one or more gains between 0 and 1")
        }
        if let steadyMaskMinHighBand, !(0...1).contains(steadyMaskMinHighBand) { throw ValidationError("--steady-mask-min-high-band must be between 0 and 1") }
        if let steadyMaskLowBandBelowSnr, !(steadyMaskLowBandBelowSnr >= 0) { throw ValidationError("--steady-mask-low-band-below-snr must be 0 dB or more") }
        if let trailingSilence, !(0.05...5).contains(trailingSilence) { throw ValidationError("--trailing-silence must be between 0.05 and 5 seconds") }
        if let steadyMaskHoldBelowSnr, !(steadyMaskHoldBelowSnr >= 0) { throw ValidationError("--steady-mask-hold-below-snr must be 0 dB or more") }
        if let steadyMaskTrailingSilence, steadyMaskTrailingSilence != 0, !(0.05...5).contains(steadyMaskTrailingSilence) {
            throw ValidationError("--steady-mask-trailing-silence must be 0 or between 0.05 and 5 seconds")
        }
    }

    /// The settings; a --speaker profile that cannot be read ends the command (66 missing, 65 not a profile).
    func options() throws -> RecognizerOptions {
        var options = RecognizerOptions()
        if let speaker { options.speaker = try SpeakerProfileFile.read(speaker) }
        if let garbagePenalty { options.garbageWordPenalty = garbagePenalty }
        if let noisyGarbagePenalty { options.noisyGarbageWordPenalty = noisyGarbagePenalty }
        if let noisyGarbageInside { options.noisyGarbageInsidePhrase = noisyGarbageInside > 0 ? noisyGarbageInside : nil }
        if let minConfidence { options.minConfidence = minConfidence }
        if let trailingSilence { options.endpointer.trailingSilence = trailingSilence }
        if noFrontEnd {
            options.highPassCutoff = nil
            options.cancelsMainsHum = false
            options.noiseSuppression = nil
            options.foregroundMarginDB = nil
            options.foregroundWordMarginDB = nil
            options.noisyGarbageWordPenalty = nil
            options.maskingNoiseBelowPeakDB = nil
            options.quietFloorBelowPeakDB = nil
            options.noiseAdaptation = nil
            options.rejoinGap = nil
            options.forcedChoiceMarginPerFrame = nil
            options.masksBursts = false
        }
        if talkMask != .off && !noFrontEnd {
            options.backgroundTalkMask = try learnedMask(BackgroundTalkMask.modelFileName, weights: talkMaskWeights, required: talkMask == .on,
                                                         what: "the talk mask", option: "--talk-mask-weights", without: "background talk").map {
                var talk = BackgroundTalkMask(mask: $0)
                if let talkMaskFloors { talk.floors = talkMaskFloors }
                if let talkMaskAgreement { talk.agreesOnMeaning = talkMaskAgreement == .meaning }
                if let talkMaskLoneCopy { talk.loneCopyMinConfidence = talkMaskLoneCopy.minConfidence }
                if let talkMaskForcedConfirmation { talk.forcedConfirmationMinConfidence = talkMaskForcedConfirmation.minConfidence }
                if let talkMaskMildFloors { talk.mildFloorSteps = talkMaskMildFloors }
                if let talkMaskCleanUtterances { talk.masksCleanUtterances = talkMaskCleanUtterances == .on }
                return talk
            }
        }
        if steadyMask != .off && !noFrontEnd {
            options.steadyNoiseMask = try learnedMask(SteadyNoiseMask.modelFileName, weights: steadyMaskWeights, required: steadyMask == .on,
                                                      what: "the steady-noise mask", option: "--steady-mask-weights", without: "steady noise").map {
                var steady = SteadyNoiseMask(mask: $0)
                if let steadyMaskFloors { steady.floors = steadyMaskFloors }
                if let steadyMaskMinHighBand { steady.minShareAbove1kHz = steadyMaskMinHighBand > 0 ? steadyMaskMinHighBand : nil }
                if let steadyMaskLowBandBelowSnr { steady.lowBandBelowSNR = steadyMaskLowBandBelowSnr > 0 ? steadyMaskLowBandBelowSnr : nil }
                if let steadyMaskAgreement { steady.agreesOnMeaning = steadyMaskAgreement == .meaning }
                if let steadyMaskTieBreak { steady.tieBreakMinConfidence = steadyMaskTieBreak.minConfidence }
                if let steadyMaskTrailingSilence { steady.trailingSilence = steadyMaskTrailingSilence > 0 ? steadyMaskTrailingSilence : nil }
                if let steadyMaskHoldBelowSnr { steady.holdBelowSNR = steadyMaskHoldBelowSnr > 0 ? steadyMaskHoldBelowSnr : nil }
                return steady
            }
        }
        if let foregroundWordMargin { options.foregroundWordMarginDB = foregroundWordMargin > 0 ? foregroundWordMargin : nil }
        if let verifyMargin {
            options.verificationMarginPerFrame = verifyMargin > 0 ? verifyMargin : nil
            options.noisyVerificationMarginPerFrame = options.verificationMarginPerFrame
            options.adaptedVerificationMarginPerFrame = options.verificationMarginPerFrame
        }
        if let noisyVerifyMargin {
            options.noisyVerificationMarginPerFrame = noisyVerifyMargin > 0 ? noisyVerifyMargin : nil
            options.adaptedVerificationMarginPerFrame = options.noisyVerificationMarginPerFrame
        }
        if let adaptedDoubt { options.adaptedDoubtBelowConfidence = adaptedDoubt > 0 ? adaptedDoubt : nil }
        if let adaptedVerifyMargin { options.adaptedVerificationMarginPerFrame = adaptedVerifyMargin > 0 ? adaptedVerifyMargin : nil }
        if let wordVerifyMargin { options.wordVerificationMarginPerFrame = wordVerifyMargin > 0 ? wordVerifyMargin : nil }
        if let noiseSuppression { noiseSuppressionSettings(noiseSuppression > 0 ? .speex(maxAttenuationDB: noiseSuppression) : nil, &options) }
        if let noiseSuppressor { noiseSuppressionSettings(noiseSuppressor.method, &options) }
        if let maskingNoise { options.maskingNoiseBelowPeakDB = maskingNoise > 0 ? maskingNoise : nil }
        if let quietFloor { options.quietFloorBelowPeakDB = quietFloor > 0 ? quietFloor : nil }
        if let quietFloorDoubt { options.quietFloorDoubtBelowConfidence = quietFloorDoubt }
        if quietFloorFor == .all { options.quietFloorDoubtBelowConfidence = nil }
        if let noiseAdaptation { options.noiseAdaptation = noiseAdaptation == .on ? NoiseAdaptation() : nil }
        if let noiseUncertainty { options.noiseAdaptation?.uncertainty = noiseUncertainty }
        if let adaptationFade { options.noiseAdaptation?.rangeFadeDB = adaptationFade }
        if let silenceAdaptation { options.noiseAdaptation?.adaptsSilencePastGate = silenceAdaptation == .on }
        if let accentVariants { options.accentVariantProbability = accentVariants > 0 ? accentVariants : nil }
        if let confusableVariantsInNoise { options.confusableOneWordVariantsInNoise = confusableVariantsInNoise == .on }
        if let minVoiced { options.minVoicedSeconds = minVoiced > 0 ? minVoiced : nil }
        if let maxVoicedSilence { options.maxVoicedSilenceSeconds = maxVoicedSilence > 0 ? maxVoicedSilence : nil }
        if let rejoinGap { options.rejoinGap = rejoinGap > 0 ? rejoinGap : nil }
        if let forcedChoiceMargin { options.forcedChoiceMarginPerFrame = forcedChoiceMargin > 0 ? forcedChoiceMargin : nil }
        if let forcedChoiceConfidence { options.forcedChoiceMinConfidence = forcedChoiceConfidence }
        if let maskBursts { options.masksBursts = maskBursts == .on }
        if let mainsHum, !noFrontEnd { options.cancelsMainsHum = mainsHum == .on }
        if let maxActiveHmms { options.maxActiveHMMs = maxActiveHmms > 0 ? maxActiveHmms : nil }
        if let noisyMaxActiveHmms { options.noisyMaxActiveHMMs = noisyMaxActiveHmms > 0 ? noisyMaxActiveHmms : nil }
        if stockGaussians { options.decoder.interleavedGaussians = false }
        if let decoderLog { options.decoder.logFile = URL(fileURLWithPath: decoderLog) }
        for argument in decoderArguments {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            options.decoder.arguments[parts[0]] = parts[1]
        }
        return options
    }

    /// A learned mask's weights from `weights` (its hidden option) or `Models/NAME`; a file that
    /// cannot be used ends the command (66 missing, 65 not weights). When heed's own is not
    /// found, decoding goes on without it and says so, unless the mask was asked for (`required`).
    private func learnedMask(_ name: String, weights: String?, required: Bool, what: String, option: String, without: String) throws -> TalkMask? {
        let url: URL
        if let weights {
            url = URL(fileURLWithPath: weights)
        } else if let own = AppOptions.ownModelFile(name) {
            url = own
        } else {
            let problem = "Models/\(name) was not found beside heed"
            guard !required else {
                Terminal.error("\(problem); pass \(option) FILE")
                throw ExitCode(66)
            }
            Terminal.error("warning: \(problem): \(without) is decoded without \(what)")
            return nil
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            Terminal.error("\(url.path): no such file (\(what)'s weights)")
            throw ExitCode(66)
        }
        do {
            return try TalkMask(contentsOf: url)
        } catch {
            Terminal.error(error.description)
            throw ExitCode(65)
        }
    }

    /// A suppressor and the front end measured with it: WebRTC's behind a high-pass, feeding
    /// the endpointer, over a masking floor; speexdsp's as it was before, with the endpointer on
    /// the raw audio and no masking floor.
    private func noiseSuppressionSettings(_ method: NoiseSuppressor.Method?, _ options: inout RecognizerOptions) {
        options.noiseSuppression = method
        if case .speex = method {
            options.suppressorHighPassCutoff = nil
            options.endpointsDenoisedAudio = false
            options.maskingNoiseBelowPeakDB = nil
            options.noiseAdaptation = nil
        }
    }
}

enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off
}

/// `--steady-mask-tie-break`, `--talk-mask-lone-copy` and `--talk-mask-forced-confirmation`: off, or the least confidence the command they would take needs.
struct ConfidenceOrOff: ExpressibleByArgument {
    var minConfidence: Double?

    init?(argument: String) {
        if argument == "off" { minConfidence = nil; return }
        guard let value = Double(argument), (0...1).contains(value) else { return nil }
        minConfidence = value
    }
}

enum MaskAgreement: String, ExpressibleByArgument, CaseIterable {
    case words, meaning
}

enum QuietFloorUse: String, ExpressibleByArgument, CaseIterable {
    case doubtful, all
}

enum NoiseSuppressorChoice: String, ExpressibleByArgument, CaseIterable {
    case webrtc, speex, off

    var method: NoiseSuppressor.Method? {
        switch self {
        case .webrtc: .webRTC(.high)
        case .speex: .speex(maxAttenuationDB: 15)
        case .off: nil
        }
    }
}
