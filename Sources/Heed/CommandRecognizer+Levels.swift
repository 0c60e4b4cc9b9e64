import Foundation
import HeedAudio
import HeedRecognition

// Levels of 10 ms frames, and what they tell: how noisy an utterance is, its loud stretch, and
// voiced speech inside what the decoder took for silence.
extension CommandRecognizer {
    // MARK: Levels

    /// An utterance whose quietest tenth is more than this below its peak has real pauses: no
    /// background to cut away (`foreground`).
    static let backgroundRangeDB = 45.0

    /// Power of each 10 ms frame in dB (full scale is about 90).
    static func frameLevels(_ samples: ArraySlice<Int16>, frame: Int) -> [Double] {
        stride(from: samples.startIndex, to: samples.endIndex - frame + 1, by: frame).map { start in
            10 * log10(max(samples[start..<start + frame].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frame), 1))
        }
    }

    static func dynamicRange(_ levels: [Double]) -> Double? {
        guard let peak = levels.max() else { return nil }
        return peak - levels.sorted()[levels.count / 10]
    }

    /// How far the loudest 10 ms frame stands above the quietest tenth of frames, in dB: low
    /// when noise fills the pauses.
    static func dynamicRange(of samples: ArraySlice<Int16>, sampleRate: Int) -> Double? {
        dynamicRange(frameLevels(samples, frame: sampleRate / 100))
    }

    /// The span of `samples` from the first to the last 10 ms frame within `marginDB` of the
    /// loudest frame, padded by 150 ms; nil when that is (nearly) all of it, or when the
    /// utterance has real pauses (its quietest tenth more than `backgroundRangeDB` below the
    /// peak): then there is no background to cut away, and cutting would only drop the quiet end
    /// of the speaker's own words ("cancel my appoint-ment").
    static func foreground(of samples: ArraySlice<Int16>, marginDB: Double, sampleRate: Int) -> Range<Int>? {
        let frame = sampleRate / 100
        let levels = frameLevels(samples, frame: frame)
        guard let peak = levels.max(), let range = dynamicRange(levels), range < backgroundRangeDB,
              let first = levels.firstIndex(where: { $0 >= peak - marginDB }),
              let last = levels.lastIndex(where: { $0 >= peak - marginDB }) else { return nil }
        let span = padded(frames: first...last, frameLength: frame, in: samples, sampleRate: sampleRate)
        return span.count < (samples.count * 9) / 10 ? span : nil
    }

    /// The samples of `frames` (frames of `frameLength` samples counted from the start of
    /// `samples`) with 150 ms either side, so the quiet edges of a loud stretch's words stay in,
    /// clamped to `samples`.
    static func padded(frames: ClosedRange<Int>, frameLength: Int, in samples: ArraySlice<Int16>, sampleRate: Int) -> Range<Int> {
        let pad = sampleRate * 15 / 100
        let lower = max(samples.startIndex, samples.startIndex + frames.lowerBound * frameLength - pad)
        let upper = min(samples.endIndex, samples.startIndex + (frames.upperBound + 1) * frameLength + pad)
        return lower..<max(lower, upper)
    }

    // MARK: Speech taken for silence

    /// Fillers (silence, noise) shorter than this many frames are not looked into: a word's
    /// voiced edge may fall into the silence beside it.
    static let silenceMinFrames = 10
    /// A filler is looked into only when its loudest frame is within this many dB of the spoken
    /// words' loudest: the quiet room around a command is left alone.
    static let silenceWithinDB = 20.0

    /// Voiced sound in a filler counts only from its first onset: a frame this many dB above the
    /// quietest frame before it in the filler and louder than all of them. Speech left out starts
    /// somewhere; the room's echo of the word before the filler only fades, and in a reverberant
    /// copy of the suites it held up to 0.3 s of voiced sound after a command's last word.
    static let silenceOnsetRiseDB = 10.0

    /// The most voiced speech in seconds (counted up to `enough`) in any filler of `words`
    /// (frames of `frameLength` samples from the start of `samples`) of `silenceMinFrames` or
    /// more, from its first onset (`silenceOnsetRiseDB`) on, when the filler from there is within
    /// `silenceWithinDB` of the spoken words' loudest frame.
    static func voicedSpeechInSilence(_ words: [WordSegment], _ samples: ArraySlice<Int16>, frameLength: Int, sampleRate: Int,
                                      enough: Double = .infinity) -> Double {
        let levels = frameLevels(samples, frame: frameLength)
        let frames = { (segment: WordSegment) in min(levels.count, segment.startFrame)..<min(levels.count, segment.endFrame + 1) }
        guard let peak = words.filter({ !$0.isFiller }).compactMap({ levels[frames($0)].max() }).max() else { return 0 }
        return words.filter { $0.isFiller && $0.endFrame - $0.startFrame + 1 >= silenceMinFrames }.reduce(0) { most, filler in
            let range = frames(filler)
            guard let onset = firstOnset(levels[range]), levels[onset..<range.upperBound].max()! >= peak - silenceWithinDB else { return most }
            let stretch = (samples.startIndex + onset * frameLength)..<(samples.startIndex + range.upperBound * frameLength)
            return max(most, Voicing.voicedDuration(in: samples[stretch], sampleRate: sampleRate, enough: enough))
        }
    }

    /// The first of `levels` louder than all before it and at least `silenceOnsetRiseDB` above
    /// the quietest of them, or nil.
    static func firstOnset(_ levels: ArraySlice<Double>) -> Int? {
        var quietest = Double.infinity, loudest = -Double.infinity
        for index in levels.indices {
            if levels[index] >= quietest + silenceOnsetRiseDB && levels[index] > loudest { return index }
            quietest = min(quietest, levels[index])
            loudest = max(loudest, levels[index])
        }
        return nil
    }
}
