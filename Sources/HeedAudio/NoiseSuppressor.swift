import CSpeexDSP

/// Removes steady background noise (fans, hum, traffic) before endpointing and decoding:
/// speexdsp's preprocessor, which tracks the noise spectrum continuously and attenuates it per
/// frequency band. Only denoising is on: its AGC and VAD would fight Heed's own endpointer.
///
/// Feed any number of samples in chunks of any size; output lags input by less than one frame
/// and `flush` returns the remainder. Not thread-safe; one per stream.
public final class NoiseSuppressor {
    public let sampleRate: Int
    /// Samples per frame the preprocessor works on (20 ms).
    public let frameLength: Int
    private let state: OpaquePointer
    private var pending: [Int16] = []

    /// - Parameter maxAttenuationDB: how far noise may be pushed down (speexdsp's default is 15).
    public init(sampleRate: Int = 16_000, maxAttenuationDB: Int = 15) {
        self.sampleRate = sampleRate
        frameLength = sampleRate / 50
        guard let state = speex_preprocess_state_init(Int32(frameLength), Int32(sampleRate)) else {
            // Only fails when out of memory.
            fatalError("speex_preprocess_state_init failed")
        }
        self.state = state
        // (VAD stays at its default, off: setting it at all prints a warning on stderr.)
        var on: Int32 = 1, off: Int32 = 0, suppress = Int32(-abs(maxAttenuationDB))
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &on)
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &suppress)
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC, &off)
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DEREVERB, &off)
    }

    deinit { speex_preprocess_state_destroy(state) }

    /// Denoised samples for every whole frame available so far.
    public func process(_ samples: [Int16]) -> [Int16] {
        pending.append(contentsOf: samples)
        let whole = pending.count / frameLength * frameLength
        guard whole > 0 else { return [] }
        var output = Array(pending[0..<whole])
        output.withUnsafeMutableBufferPointer { buffer in
            for start in stride(from: 0, to: whole, by: frameLength) {
                _ = speex_preprocess_run(state, buffer.baseAddress! + start)
            }
        }
        pending.removeFirst(whole)
        return output
    }

    /// The last partial frame, denoised (padded with silence internally).
    public func flush() -> [Int16] {
        let count = pending.count
        guard count > 0 else { return [] }
        return Array(process([Int16](repeating: 0, count: frameLength - count)).prefix(count))
    }
}
