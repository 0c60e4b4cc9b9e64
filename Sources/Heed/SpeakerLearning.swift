import HeedRecognition

/// Learning the speaker from their own commands (`RecognizerOptions.learnsSpeaker`): unsupervised
/// enrollment, with what the recognizer understood as the words said.
extension CommandRecognizer {
    /// Learns from `utterance` (decoded from `samples`) when it is a command understood surely, in
    /// quiet, and moves the model to the profile learned so far once it holds enough commands. A
    /// command whose audio does not fit its words well enough is passed over, as enrollment
    /// refuses a sentence.
    /// `samples` are as decoded, never denoised (`UtteranceStream` keeps no noisy utterance for this).
    func learnSpeaker(from utterance: Utterance?, samples: ArraySlice<Int16>) throws(HeedError) {
        guard var learning = speakerLearning, let utterance, utterance.understood, utterance.intent != nil,
              utterance.confidence >= options.speakerLearningMinConfidence,
              // Denoised or noisy audio would teach the model the room, not the voice.
              let range = NoiseStage.dynamicRange(of: samples, sampleRate: sampleRate), range >= Enrollment.minDynamicRangeDB
        else { return }
        try checkAuthorization()
        decoder.restoreAcousticModel()
        let words = utterance.transcript.split(separator: " ").map(String.init)
        do {
            try learning.add(samples, saying: words, with: decoder)
        } catch {
            // A mismatch or a recording too short for its words: nothing was learned from it.
            guard error.kind == .decoding else { throw HeedError(error) }
            return
        }
        let profile = learning.profile(for: decoder)
        if profile.phrases >= options.speakerLearningMinPhrases {
            do { try decoder.apply(profile) } catch { throw HeedError(error) }
        }
        speakerLearning = learning
        learnedSpeaker = profile
    }
}
