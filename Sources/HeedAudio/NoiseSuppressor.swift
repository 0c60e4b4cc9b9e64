import CSpeexDSP
import CWebRTCNoise

/// Removes steady background noise (fans, hum, traffic) before endpointing and decoding, with
/// one of two suppressors that each track the noise spectrum continuously and attenuate it per
/// frequency band. Only denoising is on: AGC and VAD would fight Heed's own endpointer.
///
/// Feed any number of samples in chunks of any size; output lags input by less than one frame
/// and `flush` returns the remainder. Not thread-safe; one per stream.
public final class NoiseSuppressor {
    public enum Method: Equatable, Sendable {
        /// speexdsp's preprocessor, pushing noise down by at most this many dB (its default is 15).
        case speex(maxAttenuationDB: Int)
        /// WebRTC's noise suppressor (Debian's webrtc-audio-processing 0.3), at this aggressiveness.
        case webRTC(WebRTCLevel)
    }

    public enum WebRTCLevel: Int32, Sendable { case low = 0, moderate, high, veryHigh }

    public let method: Method
    public let sampleRate: Int
    /// Samples per frame the suppressor works on (speexdsp 20 ms, WebRTC 10 ms).
    public let frameLength: Int
    private let engine: Engine
    private var pending: [Int16] = []

    private enum Engine {
        case speex(OpaquePointer)
        case webRTC(OpaquePointer)
    }

    public convenience init(sampleRate: Int = 16_000, maxAttenuationDB: Int = 15) {
        self.init(.speex(maxAttenuationDB: maxAttenuationDB), sampleRate: sampleRate)!
    }

    /// nil when the method cannot run at `sampleRate` (WebRTC takes 8, 16, 32 or 48 kHz).
    public init?(_ method: Method, sampleRate: Int = 16_000) {
        self.method = method
        self.sampleRate = sampleRate
        switch method {
        case .speex(let maxAttenuationDB):
            frameLength = sampleRate / 50
            guard let state = speex_preprocess_state_init(Int32(frameLength), Int32(sampleRate)) else { return nil }
            // (VAD stays at its default, off: setting it at all prints a warning on stderr.)
            var on: Int32 = 1, off: Int32 = 0, suppress = Int32(-abs(maxAttenuationDB))
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &on)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &suppress)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC, &off)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DEREVERB, &off)
            engine = .speex(state)
        case .webRTC(let level):
            guard let state = heed_webrtc_ns_create(Int32(sampleRate), level.rawValue) else { return nil }
            frameLength = Int(heed_webrtc_ns_frame_length(state))
            engine = .webRTC(state)
        }
    }

    deinit {
        switch engine {
        case .speex(let state): speex_preprocess_state_destroy(state)
        case .webRTC(let state): heed_webrtc_ns_destroy(state)
        }
    }

    /// Denoised samples for every whole frame available so far.
    public func process(_ samples: [Int16]) -> [Int16] {
        pending.append(contentsOf: samples)
        let whole = pending.count / frameLength * frameLength
        guard whole > 0 else { return [] }
        var output = Array(pending[0..<whole])
        output.withUnsafeMutableBufferPointer { buffer in
            for start in stride(from: 0, to: whole, by: frameLength) {
                let frame = buffer.baseAddress! + start
                switch engine {
                case .speex(let state): _ = speex_preprocess_run(state, frame)
                // Fails only on a malformed frame, which the fixed length rules out; the frame
                // is then left as it was.
                case .webRTC(let state): _ = heed_webrtc_ns_process(state, frame)
                }
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
