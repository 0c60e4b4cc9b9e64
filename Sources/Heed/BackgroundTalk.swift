import Foundation
import HeedAudio

/// How utterances heard over background talk are decoded: through a learned mask (`TalkMask`)
/// that turns the voices behind the speaker down, once for each of `floors`, and taken only when
/// every masked copy hears the same.
///
/// One masked copy lets near misses through that the default decode rejects; two masks that must
/// agree keep most of what the mask gains (BENCHMARKS.md, "The talk mask, built"). The mask runs
/// only on utterances the default front end cannot help: noisy, with noise that changes too fast
/// to be steady. Applied to steady noise or clean speech it was measured to cost commands.
public struct BackgroundTalkMask: Sendable {
    public var mask: TalkMask
    /// The gain of a bin the mask hears as background, one masked copy per floor. One network at
    /// two floors agreed about as well as two networks (BENCHMARKS.md).
    public var floors: [Double] = [0.1, 0.3]
    /// An utterance is over background talk when the raw audio's quietest `quietest` share of
    /// frames changes from frame to frame at least this much (`Decoder.noiseVariability`); over
    /// the quietest tenth, steady noises measured 0.2-0.5, babble 0.63-1.03. The same line
    /// `NoiseAdaptation.maxNoiseVariability` draws from the other side.
    public var minNoiseVariability = 0.55
    public var quietest = 0.1
    /// Whether copies that heard one command in other words agree (`CommandRecognizer.agreed`).
    /// On since the forced choice is kept out of it: agreeing with a forced copy took "I love
    /// jazz" over babble ("put on some jazz music" and the forced "put on jazz"), past the 2 %
    /// target (BENCHMARKS.md, "Copies that agree on the meaning, not through the forced choice").
    public var agreesOnMeaning = true

    /// When the copies disagree but every copy was judged noisy, so that even the copy with the
    /// background at 0.1 still sounds noisy, a command only one copy heard is taken if a search
    /// (not the forced choice) took it at least this sure (`CommandRecognizer.loneCommand`). In
    /// background talk that strong, a copy that hears nothing has more often lost the command to
    /// the noise than caught a near miss: all five suites in babble at 6 dB, 98 -> 138 of 426
    /// commands, no false acceptance; at 9 dB 238 -> 248 with one; at 12 dB and above one copy
    /// always sounds clean, so nothing changes (BENCHMARKS.md, "A lone copy in strong background
    /// talk"). Over steady noise the same rule took near misses, so only the talk mask has it.
    /// nil: the copies must agree.
    public var loneCopyMinConfidence: Double? = 0.9

    /// When the copies disagree in strong background talk (at `floors`: the copy at the first
    /// milder floor still sounds noisy), one copy's command that a search took at least this sure
    /// is taken when every other copy heard nothing but its forced choice named that same command
    /// and was refused (`CommandRecognizer.confirmedByForcedChoice`). A forced choice alone always
    /// names some command; here it names the one another copy heard. Measured first from traces
    /// (BENCHMARKS.md, "A refused forced choice that names the other copy's command"); in milder
    /// talk, on the ladder's steps, it took a near miss. nil: never.
    public var forcedConfirmationMinConfidence: Double? = 0.9

    /// Milder floors for milder background talk, a step at a time: while the copy at the first
    /// floor of the next step sounds clean (not noisy, as the stream judges any audio), that
    /// step's copies decide instead of `floors` or the step before. In mild babble the copy at
    /// 0.1 loses more of the voice to the mask than the background it turns down: at 18 dB both
    /// copies sounded clean, and 111 of the 135 missed commands were one copy hearing the command,
    /// nearly always the copy at 0.3. The first step took all five suites in babble at 18 dB from
    /// 291 to 383 of 426 (2 -> 1 of 122 false), at 12 dB, where the copy at 0.3 mostly sounds
    /// noisy, 327 -> 331 (BENCHMARKS.md, "Milder floors for mild background talk"). The second
    /// does the same one step up, where even the copy at 0.5 sounds clean: at 24 dB the copy at
    /// 0.3 still took near misses ("start the car", "the drill is in the drawer") that the copies
    /// at 0.5 and 0.7 turn away (BENCHMARKS.md, "A ladder of floors for milder background talk").
    /// Empty: always `floors`.
    public var mildFloorSteps: [[Double]] = [[0.3, 0.5], [0.5, 0.7]]

    /// Whether an utterance that sounds clean goes through the mask too when the noise under it
    /// changes like background talk. Talk has lulls: at 24 dB a fifth of the utterances in
    /// babble had a quietest tenth deep enough to sound clean, and the clean path's checks,
    /// tuned for quiet rooms, took near misses there ("check the mail" as "turn the lathe off",
    /// through the quiet floor's second opinion). All five suites in babble at 24 dB, 388 / 3 /
    /// 13 -> 384 / 2 / 7 of 426 right / 122 false / wrong; clean speech, clatter, reverberation
    /// and brown and pink noise unchanged (BENCHMARKS.md, "Utterances that sound clean over
    /// background talk"). The copies are judged as ever, so they climb `mildFloorSteps`.
    public var masksCleanUtterances = true

    public init(mask: TalkMask) {
        self.mask = mask
    }

    /// `Models/talk-mask.weights`, made by `scripts/talk-mask.py` (seed 1).
    public static let modelFileName = "talk-mask.weights"
}

/// What masked copies must share to agree (`CommandRecognizer.agreed`).
enum CopyAgreement: Equatable {
    /// The same words.
    case words
    /// The same command, in other words too (`CommandRecognizer.otherWordsMinConfidence`);
    /// `withForcedChoice`: also when a copy's command came only from the forced choice, which
    /// always names some command.
    case meaning(withForcedChoice: Bool)
}

extension BackgroundTalkMask {
    /// How the copies agree. Over background talk a forced copy never agrees in other words: with
    /// it, "I love jazz" was heard as "put on some jazz music" by one copy and forced onto "put on
    /// jazz" in the other (BENCHMARKS.md, "Copies that agree on the meaning, not through the
    /// forced choice").
    var copyAgreement: CopyAgreement { agreesOnMeaning ? .meaning(withForcedChoice: false) : .words }
}

extension CommandRecognizer {
    /// Whether the noise under `raw` (an utterance as heard) changes like background talk
    /// (`BackgroundTalkMask.minNoiseVariability`); false without a talk mask.
    func isOverBackgroundTalk(_ raw: ArraySlice<Int16>) -> Bool {
        guard let talk = options.backgroundTalkMask,
              let variability = decoder.noiseVariability(of: raw, quietest: talk.quietest) else { return false }
        return variability >= talk.minNoiseVariability
    }

    /// The one utterance the masked copies' decodes agree on: all understood the same words or,
    /// agreeing by `.meaning`, the same command in other words (`meansTheSame`) at
    /// `otherWordsMinConfidence` or more; its confidence is the least of theirs. When they differ,
    /// the first copy's result, not understood.
    static func agreed(_ results: [Utterance?], by agreement: CopyAgreement = .words) -> Utterance? {
        guard let first = results.compactMap({ $0 }).first else { return nil }
        let all = results.compactMap { $0 }
        guard all.count == results.count, all.allSatisfy({ $0.understood && $0.meansTheSame(as: first) }) else {
            return first.understood ? first.rejected : first
        }
        var agreed = first
        agreed.confidence = all.map(\.confidence).min()!
        let sameWords = all.allSatisfy { $0.transcript == first.transcript }
        let inOtherWords = switch agreement {
        case .words: false
        case .meaning(let withForcedChoice):
            agreed.confidence >= otherWordsMinConfidence && (withForcedChoice || !all.contains(where: \.isForcedChoice))
        }
        return sameWords || inOtherWords ? agreed : first.rejected
    }

    /// The one command among `results` (the masked copies' decodes) when exactly one copy
    /// understood one, a search took it (not the forced choice, which always names a command) and
    /// it is at least `minConfidence` sure; nil otherwise.
    static func loneCommand(_ results: [Utterance?], minConfidence: Double) -> Utterance? {
        let heard = results.compactMap { $0 }.filter(\.understood)
        guard heard.count == 1, let lone = heard.first, !lone.isForcedChoice, lone.confidence >= minConfidence else { return nil }
        return lone
    }

    /// The one command among `results` (the masked copies' decodes) that a search took at least
    /// `minConfidence` sure when every other copy understood nothing and its refused forced
    /// choice named that command (`Utterance.refusedForcedChoice`); nil otherwise.
    static func confirmedByForcedChoice(_ results: [Utterance?], minConfidence: Double) -> Utterance? {
        guard let lone = loneCommand(results, minConfidence: minConfidence), let intent = lone.intent,
              results.allSatisfy({ $0?.understood == true || $0?.refusedForcedChoice == intent }) else { return nil }
        return lone
    }

    /// The least confidence at which copies that heard one intent in other words agree. It is
    /// weaker agreement than the same words: "start the car" was heard as "start the recording"
    /// by one copy and "start recording" by the other, at 0.35 (BENCHMARKS.md, "Copies that
    /// agree on the meaning").
    static let otherWordsMinConfidence = 0.4
}

extension Utterance {
    /// Whether this and `other` carry the same intent with the same slots, or, decoded without
    /// intents, the same words: "set the lathe to high speed" and "set the lathe at high speed"
    /// are one command, as the confidence weighs them (`CommandRecognizer.confidence`).
    func meansTheSame(as other: Utterance) -> Bool {
        if let intent, let otherIntent = other.intent { return intent == otherIntent }
        return intent == nil && other.intent == nil && transcript == other.transcript
    }
}
