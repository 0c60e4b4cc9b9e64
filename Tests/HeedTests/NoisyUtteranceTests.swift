import Foundation
import Testing
@testable import Heed

/// How the recognizer tells a noisy utterance from a clean one, and finds its foreground.
@Suite struct NoisyUtteranceTests {
    /// 10 ms frames at the given levels (dB below full scale), as tone bursts.
    func frames(_ levels: [Double]) -> ArraySlice<Int16> {
        var samples: [Int16] = []
        for level in levels {
            let amplitude = 32767 * pow(10, -level / 20) * 2.0.squareRoot()
            samples += (0..<160).map { Int16(max(-32768, min(32767, amplitude * sin(2 * Double.pi * 500 * Double($0) / 16_000)))) }
        }
        return samples[...]
    }

    @Test func pausesMakeAWideRangeNoiseANarrowOne() throws {
        let clean = frames(Array(repeating: 90, count: 40) + Array(repeating: 10, count: 40) + Array(repeating: 90, count: 40))
        let noisy = frames(Array(repeating: 35, count: 40) + Array(repeating: 10, count: 40) + Array(repeating: 35, count: 40))
        #expect(try #require(CommandRecognizer.dynamicRange(of: clean, sampleRate: 16_000)) > 60)
        #expect(try #require(CommandRecognizer.dynamicRange(of: noisy, sampleRate: 16_000)) < 30)
    }

    @Test func foregroundIsTheLoudPartPaddedWhenBackgroundFillsTheRest() throws {
        // 1 s of background 28 dB down, 0.4 s of speech, 1 s of background.
        let samples = frames(Array(repeating: 38, count: 100) + Array(repeating: 10, count: 40) + Array(repeating: 38, count: 100))
        let span = try #require(CommandRecognizer.foreground(of: samples, marginDB: 15, sampleRate: 16_000))
        #expect(span == (100 * 160 - 2_400)..<(140 * 160 + 2_400))
    }

    @Test func noForegroundWhenThereAreRealPauses() {
        // The same shape with silence instead of background: nothing to cut away.
        let samples = frames(Array(repeating: 85, count: 100) + Array(repeating: 10, count: 40) + Array(repeating: 85, count: 100))
        #expect(CommandRecognizer.foreground(of: samples, marginDB: 15, sampleRate: 16_000) == nil)
    }

    /// The loud words of an utterance over background talk count only when the words they make
    /// are heard again, next to each other, when their stretch is decoded alone.
    @Test func runsAreConsecutiveElements() {
        #expect(["done", "cancel", "my", "order", "who"].containsRun(["cancel", "my", "order"]))
        #expect(!["cancel", "the", "order"].containsRun(["cancel", "order"]))
        #expect(["stop"].containsRun(["stop"]))
        #expect(![String]().containsRun(["stop"]))
        #expect(!["stop"].containsRun(["stop", "now"]))
    }

    @Test func noForegroundWhenTheLoudPartIsNearlyEverything() {
        let samples = frames(Array(repeating: 12, count: 95) + Array(repeating: 30, count: 5))
        #expect(CommandRecognizer.foreground(of: samples, marginDB: 15, sampleRate: 16_000) == nil)
    }
}
