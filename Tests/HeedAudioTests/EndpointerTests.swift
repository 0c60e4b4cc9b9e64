import Testing
@testable import HeedAudio

@Suite struct EndpointerTests {
    /// Runs a sequence of per-frame energies (dBFS) through an endpointer.
    func events(_ energies: [Float], configuration: Endpointer.Configuration = .init()) -> [(Int, Endpointer.Event)] {
        var endpointer = Endpointer(configuration: configuration)
        var out: [(Int, Endpointer.Event)] = []
        for (frame, db) in energies.enumerated() {
            if let event = endpointer.process(energyDB: db) { out.append((frame, event)) }
        }
        if let event = endpointer.finish(totalSamples: energies.count * 160) { out.append((energies.count, event)) }
        return out
    }

    @Test func findsOneWordWithPreRollAndTrailingSilence() {
        // 1 s of room noise at -60 dBFS, 0.5 s of speech at -25, 1 s of noise.
        let energies = [Float](repeating: -60, count: 100) + [Float](repeating: -25, count: 50) + [Float](repeating: -60, count: 100)
        let found = events(energies)
        #expect(found.count == 2)
        guard found.count == 2 else { return }
        // Speech starts at frame 100; the utterance includes 250 ms of pre-roll.
        #expect(found[0].1 == .speechStart(atSample: 75 * 160))
        // It ends after 250 ms of silence, keeping 150 ms after the last loud frame (149).
        #expect(found[1].0 == 149 + 25)
        #expect(found[1].1 == .speechEnd(atSample: (150 + 15) * 160))
    }

    /// Where the utterance will end is known 150 ms into the silence, before the endpoint is
    /// confirmed at 250 ms, and it is where the endpoint then puts it.
    @Test func tentativeEndIsKnownBeforeTheEndpoint() {
        let energies = [Float](repeating: -60, count: 100) + [Float](repeating: -25, count: 50) + [Float](repeating: -60, count: 100)
        var endpointer = Endpointer()
        var tentative: [(frame: Int, end: Int)] = []
        var end: (frame: Int, at: Int)?
        for (frame, db) in energies.enumerated() {
            if case .speechEnd(let at) = endpointer.process(energyDB: db) { end = (frame, at) }
            if let sample = endpointer.tentativeEnd { tentative.append((frame, sample)) }
        }
        #expect(tentative.first?.frame == 149 + 15)
        #expect(tentative.last?.frame == 149 + 24)
        #expect(Set(tentative.map(\.end)) == [(150 + 15) * 160])
        #expect(end?.frame == 149 + 25 && end?.at == (150 + 15) * 160)
        // Speech that resumes withdraws it.
        var resumed = Endpointer()
        for db in [Float](repeating: -60, count: 100) + [Float](repeating: -25, count: 50) + [Float](repeating: -60, count: 20) { _ = resumed.process(energyDB: db) }
        #expect(resumed.tentativeEnd == (150 + 15) * 160)
        _ = resumed.process(energyDB: -25)
        #expect(resumed.tentativeEnd == nil)
    }

    /// Held open, an utterance ends only after the longer silence, at the same place, and speech
    /// within it continues the utterance; the next utterance ends after the configured silence again.
    @Test func anUtteranceHeldOpenEndsAfterTheLongerSilenceAtTheSameSample() {
        let word = [Float](repeating: -25, count: 50), pause = [Float](repeating: -60, count: 35)
        var endpointer = Endpointer()
        var ends: [(frame: Int, at: Int)] = []
        for (frame, db) in ([Float](repeating: -60, count: 100) + word + pause + word + [Float](repeating: -60, count: 100)
                            + word + [Float](repeating: -60, count: 100)).enumerated() {
            if case .speechEnd(let at) = endpointer.process(energyDB: db) { ends.append((frame, at)) }
            if frame == 160 { endpointer.holdOpen(trailingSilence: 0.45) }  // in the first pause
        }
        // The 0.35 s pause no longer ends the first utterance; the second word joins it.
        #expect(ends.count == 2)
        guard ends.count == 2 else { return }
        #expect(ends[0].at == (235 + 15) * 160 && ends[0].frame == 234 + 45)
        #expect(ends[1].at == (385 + 15) * 160 && ends[1].frame == 384 + 25)
        #expect(endpointer.heldTrailingSilence == nil)
        // Not held, the same pause ends it.
        #expect(events([Float](repeating: -60, count: 100) + word + pause + word).count == 4)
        // Nothing to hold outside speech, and never shorter than configured.
        var idle = Endpointer()
        idle.holdOpen(trailingSilence: 1)
        #expect(idle.heldTrailingSilence == nil)
    }

    /// Talk behind the speaker: after a word at -20 dBFS, frames at -42 with brief dips to -52,
    /// above the floor but 20 dB below the word. Heard as speech, they held the utterance open to
    /// the end of the input; as background they end it 0.3 s (`foregroundTail`) later than silence
    /// would, the audio running that far past the word, and where the pause is known early.
    @Test func talkFarBelowTheSpeakerEndsTheUtterance() {
        let talk = (0..<300).map { $0 % 10 == 0 ? Float(-52) : -42 }
        let energies = [Float](repeating: -60, count: 100) + [Float](repeating: -20, count: 50) + talk
        let found = events(energies)
        #expect(found.count == 4, "\(found)")  // the word, then the talk as an utterance of its own
        guard found.count >= 2 else { return }
        #expect(found[1].0 == 149 + 25 + 30)
        #expect(found[1].1 == .speechEnd(atSample: (150 + 15 + 30) * 160))
        var heldOpen = Endpointer.Configuration()
        heldOpen.foregroundDB = nil
        #expect(events(energies, configuration: heldOpen).map(\.1) == [.speechStart(atSample: 75 * 160), .speechEnd(atSample: energies.count * 160)])

        var endpointer = Endpointer()
        var tentative: Set<Int> = []
        for db in energies.prefix(149 + 25 + 30) {
            _ = endpointer.process(energyDB: db)
            if let end = endpointer.tentativeEnd { tentative.insert(end) }
        }
        #expect(tentative == [(150 + 15 + 30) * 160])
    }

    /// A word's fading tail in quiet (0.25 s at -45 dBFS, 25 dB under the word) is background by
    /// level, but silence ends the utterance first, at the same sample as with no foreground limit.
    @Test func aFadingTailInQuietEndsWhereItDid() {
        let energies = [Float](repeating: -60, count: 100) + [Float](repeating: -20, count: 50) + [Float](repeating: -45, count: 25)
            + [Float](repeating: -60, count: 100)
        var noLimit = Endpointer.Configuration()
        noLimit.foregroundDB = nil
        let found = events(energies)
        #expect(found.map(\.1) == events(energies, configuration: noLimit).map(\.1))
        #expect(found.last?.1 == .speechEnd(atSample: (175 + 15) * 160))
    }

    @Test func slowlyRisingNoiseIsNotSpeech() {
        // Room noise that rises by 2 dB a second for 15 s (traffic building up), then stays.
        let energies = (0..<1500).map { Float(-70 + Double($0) * 0.02) } + [Float](repeating: -40, count: 500)
        #expect(events(energies).isEmpty)
    }

    @Test func noiseThatSwitchesOnIsAbsorbedWithinSeconds() {
        // A fan switches on: 30 dB louder, then steady for 20 s, then a word well above it.
        let energies = [Float](repeating: -70, count: 100) + [Float](repeating: -40, count: 2000)
            + [Float](repeating: -15, count: 40) + [Float](repeating: -40, count: 100)
        let found = events(energies)
        // One false utterance at the switch, ended within 6 s, then the real word.
        #expect(found.count == 4, "\(found)")
        guard found.count == 4 else { return }
        #expect(found[1].0 < 100 + 600)
        #expect(found[2].1 == .speechStart(atSample: (2100 - 25) * 160))
    }

    @Test func speechInSteadyNoiseIsFound() {
        let energies = [Float](repeating: -30, count: 200) + [Float](repeating: -12, count: 40) + [Float](repeating: -30, count: 100)
        let found = events(energies)
        #expect(found.map(\.1) == [.speechStart(atSample: 175 * 160), .speechEnd(atSample: 255 * 160)])
    }

    @Test func clicksAreIgnored() {
        var energies = [Float](repeating: -60, count: 200)
        energies[50] = -10; energies[51] = -10; energies[120] = -5
        #expect(events(energies).isEmpty)
    }

    @Test func separatesWordsAtPauses() {
        let word = [Float](repeating: -20, count: 40), pause = [Float](repeating: -60, count: 60)
        let found = events(pause + word + pause + word + pause + word + pause)
        #expect(found.count == 6)
    }

    @Test func shortDipInsideAWordDoesNotEndIt() {
        let energies = [Float](repeating: -60, count: 50) + [Float](repeating: -20, count: 20) + [Float](repeating: -50, count: 10)
            + [Float](repeating: -20, count: 20) + [Float](repeating: -60, count: 60)
        #expect(events(energies).count == 2)
    }

    @Test func endlessSpeechIsCutAtMaxUtterance() {
        var configuration = Endpointer.Configuration()
        configuration.maxUtterance = 2
        let energies = [Float](repeating: -60, count: 50) + (0..<1000).map { $0 % 2 == 0 ? -20 : -18 }
        let ends = events(energies, configuration: configuration).filter { if case .speechEnd = $0.1 { true } else { false } }
        #expect(ends.count >= 4)
        #expect(ends.first?.0 == 50 + 200 - 1)
    }

    @Test func digitalSilenceNeverTriggers() {
        #expect(events([Float](repeating: -120, count: 500)).isEmpty)
    }

    @Test func inputEndingInSpeechIsClosed() {
        let found = events([Float](repeating: -60, count: 50) + [Float](repeating: -20, count: 30))
        #expect(found.last?.1 == .speechEnd(atSample: 80 * 160))
    }
}
