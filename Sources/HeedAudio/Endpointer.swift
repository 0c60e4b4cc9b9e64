import Foundation

/// Finds where speech starts and ends in a stream of 16 kHz samples, one 10 ms frame at a time.
///
/// Energy is compared with an adaptive noise floor (it falls quickly to quieter frames and rises
/// slowly, so steady noise becomes "floor" while a spoken word does not). Speech starts after
/// `minSpeech` of frames above `floor + onsetDB`; it ends after `trailingSilence` of frames below
/// `floor + offsetDB` (hysteresis keeps quiet consonants and short closures inside the word), or
/// a little later when what follows the speaker is background: far below the utterance's loudest
/// frame (`foregroundDB`), such as talk behind them.
public struct Endpointer: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var sampleRate = 16_000
        public var frameDuration = 0.010
        /// Energy above the noise floor, in dB, that counts as the start of speech.
        public var onsetDB: Float = 10
        /// Energy above the noise floor, in dB, below which a frame counts as silence again.
        public var offsetDB: Float = 6
        /// Nothing quieter than this (dBFS) is speech, however low the floor: digital silence and hiss.
        public var absoluteFloorDB: Float = -62
        /// How long energy must stay up before it is speech (rejects clicks).
        public var minSpeech = 0.060
        /// How long silence must last to end the utterance. Most of the delay from the end of a
        /// command to its intent; 0.25 s scored as 0.3 s did on every suite, clean and in noise
        /// (BENCHMARKS.md in git history, "Latency against trailing silence"), and 0.2 s let a
        /// real sentence's last fragment through as a command.
        public var trailingSilence = 0.250
        /// How long silence must last to end the utterance when the words so far are not a whole
        /// command, or a request may go on from them (`holdOpen`): people pause inside a request
        /// ("a double shot drip coffee ... with a bit of sweetener") for half a second or more.
        public var pauseInsideRequest = 1.0
        /// An utterance longer than this is ended regardless (a stuck endpoint never hangs the pipeline).
        public var maxUtterance = 10.0
        /// Audio kept before the detected onset, so the first phone is not clipped.
        public var preRoll = 0.250
        /// How fast the floor may rise, in dB per second, while the signal stays above it.
        public var floorRiseDBPerSecond: Float = 3
        /// After this long in one "utterance", the signal is more likely a noise that started
        /// (a fan, a tap) than a command, and the floor rises `longUtteranceRiseFactor` times faster.
        public var longUtterance = 3.0
        public var longUtteranceRiseFactor: Float = 8
        /// Inside an utterance, frames more than this many dB below its loudest so far are
        /// background, not the speaker (nil: every frame above the floor is speech). The person
        /// speaking to the device is the loudest; talk behind them, above the floor but far below
        /// them, otherwise held the utterance open to the end of the recording and was decoded
        /// as more of the request. Real coffee requests, every 5th, six-voice babble at 24 / 18 dB:
        /// 27 / 40 -> 53 / 53 of 62 (25 dB: 53 / 52; quiet, pink, brown, hum, clatter unchanged).
        public var foregroundDB: Float? = 20
        /// Background after the speaker ends the utterance only this much later than silence
        /// would, and is kept this far past the last foreground frame: a word's fading tail (the
        /// "-lk" of "milk") falls 25-40 dB below the loudest frame, and a 20 dB limit alone cut
        /// it (real coffee requests in quiet 302 -> 298 of 310).
        public var foregroundTail = 0.3

        public init() {}

        public var frameLength: Int { Int((Double(sampleRate) * frameDuration).rounded()) }
    }

    /// What a frame changed.
    public enum Event: Equatable, Sendable {
        /// Speech began; `atSample` is where the utterance (including pre-roll) begins.
        case speechStart(atSample: Int)
        /// Speech ended; the utterance runs up to `atSample` (exclusive).
        case speechEnd(atSample: Int)
    }

    public let configuration: Configuration
    public private(set) var noiseFloorDB: Float?
    public private(set) var inSpeech = false
    public private(set) var lastEnergyDB: Float = -120

    /// The silence that ends the utterance under way, when it was held open for longer than
    /// `configuration.trailingSilence` (`holdOpen`); nil otherwise.
    public private(set) var heldTrailingSilence: Double?

    private var framesSeen = 0
    private var loudRun = 0
    private var quietRun = 0
    private var speechStartFrame = 0
    private var lastLoudFrame = 0
    private var utterancePeakDB: Float = -120
    private var backgroundRun = 0
    private var lastForegroundFrame = 0

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Silence kept after the last loud frame of an utterance: the decoder wants to see the word end.
    static let endPadding = 0.15

    /// Where the utterance will end if the silence (or background) now under way lasts; nil while
    /// speech goes on (or before `endPadding` of silence). Once known, the audio that `speechEnd`
    /// will report is complete, so it can be decoded before the endpoint is confirmed.
    public var tentativeEnd: Int? {
        guard inSpeech, configuration.trailingSilence > Self.endPadding,
              quietRun >= frames(Self.endPadding) || backgroundRun >= frames(Self.endPadding + configuration.foregroundTail)
        else { return nil }
        return endIfPauseLasts * configuration.frameLength
    }

    /// The frame the utterance ends at if the pause under way lasts: padded past the last frame
    /// above the floor, but no further than `foregroundTail` past the last foreground frame (a
    /// word's tail fades well below its loudest frame, talk behind the speaker stays there).
    /// Without `foregroundDB` every loud frame is foreground, and the first bound is the lower.
    private var endIfPauseLasts: Int {
        min(lastLoudFrame + 1 + frames(Self.endPadding), lastForegroundFrame + 1 + frames(Self.endPadding + configuration.foregroundTail))
    }

    /// Ends the utterance under way only after `trailingSilence` seconds of silence (if longer
    /// than the configured one; nil: the configured one again), not before: its end is reported
    /// where it would have been, but the audio after it has been heard. For this utterance only;
    /// nothing while not in speech.
    public mutating func holdOpen(trailingSilence: Double?) {
        guard inSpeech else { return }
        heldTrailingSilence = trailingSilence.flatMap { $0 > configuration.trailingSilence ? $0 : nil }
    }

    private func frames(_ seconds: Double) -> Int { max(1, Int((seconds / configuration.frameDuration).rounded())) }

    /// Feeds one frame of `configuration.frameLength` samples (the last may be shorter).
    /// Inlinable so callers get it specialized to their collection: unspecialized, iterating the
    /// samples through generic witnesses was about 1 % of all decoding CPU, every 10 ms of audio.
    @inlinable
    public mutating func process<Samples: Collection<Int16>>(frame: Samples) -> Event? {
        var energy: Double = 0
        for sample in frame { energy += Double(sample) * Double(sample) }
        let meanSquare = energy / Double(max(1, frame.count)) / (32768.0 * 32768.0)
        let db = Float(10 * log10(meanSquare + 1e-12))
        return process(energyDB: db)
    }

    /// Feeds the energy of one frame, in dBFS.
    public mutating func process(energyDB db: Float) -> Event? {
        defer { framesSeen += 1 }
        lastEnergyDB = db
        let c = configuration
        let floor = noiseFloorDB ?? db
        // Track the floor: down fast, up slowly; only the slow rise continues inside speech.
        if db < floor {
            noiseFloorDB = floor + 0.3 * (db - floor)
        } else {
            var rise = c.floorRiseDBPerSecond * Float(c.frameDuration)
            if inSpeech { rise *= framesSeen - speechStartFrame >= frames(c.longUtterance) ? c.longUtteranceRiseFactor : 0.25 }
            noiseFloorDB = min(db, floor + rise)
        }
        let reference = max(noiseFloorDB ?? db, c.absoluteFloorDB - c.onsetDB)
        let loud = db > reference + c.onsetDB && db > c.absoluteFloorDB
        let stillSpeech = db > reference + c.offsetDB && db > c.absoluteFloorDB

        if !inSpeech {
            loudRun = loud ? loudRun + 1 : 0
            if loudRun >= frames(c.minSpeech) {
                inSpeech = true
                quietRun = 0
                speechStartFrame = framesSeen - loudRun + 1
                lastLoudFrame = framesSeen
                lastForegroundFrame = framesSeen
                backgroundRun = 0
                utterancePeakDB = db
                let start = max(0, speechStartFrame - frames(c.preRoll))
                return .speechStart(atSample: start * c.frameLength)
            }
            return nil
        }
        utterancePeakDB = max(utterancePeakDB, db)
        if stillSpeech {
            quietRun = 0
            lastLoudFrame = framesSeen
        } else {
            quietRun += 1
        }
        if stillSpeech, c.foregroundDB.map({ db >= utterancePeakDB - $0 }) ?? true {
            backgroundRun = 0
            lastForegroundFrame = framesSeen
        } else {
            backgroundRun += 1
        }
        let tooLong = framesSeen - speechStartFrame + 1 >= frames(c.maxUtterance)
        let trailing = frames(heldTrailingSilence ?? c.trailingSilence)
        // Background (or silence) ends the utterance `foregroundTail` later than silence alone.
        if quietRun >= trailing || backgroundRun >= trailing + frames(c.foregroundTail) || tooLong {
            inSpeech = false
            loudRun = 0
            heldTrailingSilence = nil
            let end = tooLong ? framesSeen + 1 : min(framesSeen + 1, endIfPauseLasts)
            return .speechEnd(atSample: end * c.frameLength)
        }
        return nil
    }

    /// When the input ends inside a pause, the utterance ends where that pause began (as it
    /// would have, had the silence gone on), not at the end of the input.
    public mutating func finish(totalSamples: Int) -> Event? {
        guard inSpeech else { return nil }
        let pauseStart = backgroundRun > 0 ? endIfPauseLasts * configuration.frameLength : totalSamples
        inSpeech = false
        heldTrailingSilence = nil
        return .speechEnd(atSample: min(totalSamples, pauseStart))
    }
}
