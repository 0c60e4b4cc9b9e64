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

    /// Commands of the tests below.
    static func match(_ words: [String]) -> Intent? {
        switch words.joined(separator: " ") {
        case "close the blinds in the bedroom": Intent(name: "closeBlinds", slots: ["room": "bedroom"])
        case "turn the light on": Intent(name: "lightsOn")
        case "light on": Intent(name: "lightOn")
        default: nil
        }
    }

    func overBackground(_ words: String, _ levels: [Double]) -> (ClosedRange<Int>, String)? {
        CommandRecognizer.commandOverBackground(words: words.split(separator: " ").map(String.init), levels: levels,
                                                marginDB: 6, belowQuietestDB: 3, match: Self.match).map { ($0.run, $0.intent.name) }
    }

    /// Word levels as decoded from real mixes (Audio/home with babble at 10 dB): the command's
    /// function words are as quiet as the voices behind it, so the command need not be loud
    /// throughout; what decides is that every other word is quieter than all of the command.
    @Test func aCommandOverBackgroundIsARunOthersAreQuieterThan() throws {
        // "the" at 60 is 6 dB under "in" at 66; the babble's "had" at 51 is under every word.
        let found = try #require(overBackground("close the blinds in the bedroom had", [65, 60, 67, 66, 60, 65, 51]))
        #expect(found.0 == 0...5 && found.1 == "closeBlinds")
        // Background on both sides.
        #expect(overBackground("so turn the light on had", [50, 66, 62, 70, 68, 55])?.0 == 1...4)
    }

    @Test func wordsAsLoudAsTheCommandMeanNoBackgroundToDrop() {
        // A near miss in one voice: the words around the run are as loud as the run's quiet words.
        #expect(overBackground("turn the light on please", [66, 60, 68, 67, 61]) == nil)
        // Quieter than the loudest word by the margin, but not below the run's quietest word.
        #expect(overBackground("turn the light on had", [70, 60, 68, 67, 59]) == nil)
        // The whole utterance is the command: nothing to drop (the first decode would have taken it).
        #expect(overBackground("turn the light on", [66, 60, 68, 67]) == nil)
        // No run forms a command.
        #expect(overBackground("turn the lamp on had", [66, 60, 68, 67, 40]) == nil)
    }

    @Test func theLongestCommandRunWins() {
        // "light on" alone would also have quieter words around it; the whole command is the run.
        let found = overBackground("had turn the light on", [50, 60, 58, 68, 67])
        #expect(found?.0 == 1...4 && found?.1 == "lightsOn")
    }

    @Test func noForegroundWhenTheLoudPartIsNearlyEverything() {
        let samples = frames(Array(repeating: 12, count: 95) + Array(repeating: 30, count: 5))
        #expect(CommandRecognizer.foreground(of: samples, marginDB: 15, sampleRate: 16_000) == nil)
    }
}
