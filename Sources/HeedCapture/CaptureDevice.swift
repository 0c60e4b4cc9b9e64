import CALSA
import Foundation

/// A failure of the capture device, with the ALSA call that reported it.
public struct CaptureError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// The device does not exist, is busy, or disappeared (sysexits EX_UNAVAILABLE, 69).
        case unavailable
        /// The device cannot give any format Heed can use (EX_UNAVAILABLE, 69).
        case unsupportedFormat
    }

    public let kind: Kind
    public let message: String

    public var description: String { message }

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    init(device: String, function: String, code: Int32) {
        self.init(.unavailable, "capture device '\(device)': \(function) failed: \(String(cString: snd_strerror(code)))")
    }
}

/// What a capture device was opened with.
public struct CaptureFormat: Equatable, Sendable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int
    public var periodFrames: Int
    public var bufferFrames: Int

    public var description: String {
        "S16_LE \(sampleRate) Hz \(channels) ch, period \(periodFrames) frames, buffer \(bufferFrames) frames"
    }
}

/// An ALSA capture PCM.
///
/// All ALSA calls for capture live in this file; callers see Swift types and thrown errors.
/// The permission to use the microphone is checked by the pipeline before it opens one
/// (`Listener`): this type is the device, not the gate.
/// Not thread-safe: one capture thread owns it.
public final class CaptureDevice {
    public let name: String
    public let format: CaptureFormat
    /// Overruns (the hardware buffer filled before we read it) recovered so far.
    public private(set) var overruns = 0
    private let pcm: OpaquePointer

    /// Opens `name` ("default", "hw:1,0", "plughw:1,0", "sysdefault:CARD=...") for 16-bit capture,
    /// asking for `preferredRate` mono; the device may give another rate or more channels, which
    /// the caller converts.
    public init(name: String, preferredRate: Int = 16_000,
                periodTime: Duration = .milliseconds(20), bufferTime: Duration = .milliseconds(200)) throws(CaptureError) {
        self.name = name
        var handle: OpaquePointer?
        let status = snd_pcm_open(&handle, name, SND_PCM_STREAM_CAPTURE, 0)
        guard status == 0, let handle else { throw CaptureError(device: name, function: "snd_pcm_open", code: status) }
        do {
            format = try Self.configure(handle, name: name, rate: preferredRate, periodTime: periodTime, bufferTime: bufferTime)
        } catch {
            snd_pcm_close(handle)
            throw error
        }
        pcm = handle
    }

    deinit { snd_pcm_close(pcm) }

    /// Makes the next open read the ALSA configuration files again, so a device defined after
    /// Heed started (a new ~/.asoundrc, a plugged-in card's config) can be found. Call only
    /// while no device is open.
    public static func reloadConfiguration() {
        snd_config_update_free_global()
    }

    private static func configure(_ pcm: OpaquePointer, name: String, rate: Int, periodTime: Duration, bufferTime: Duration) throws(CaptureError) -> CaptureFormat {
        var params: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&params) == 0, let params else { throw CaptureError(.unavailable, "capture device '\(name)': out of memory") }
        defer { snd_pcm_hw_params_free(params) }
        func check(_ function: String, _ status: Int32) throws(CaptureError) {
            guard status >= 0 else { throw CaptureError(device: name, function: function, code: status) }
        }
        try check("snd_pcm_hw_params_any", snd_pcm_hw_params_any(pcm, params))
        try check("snd_pcm_hw_params_set_access", snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED))
        guard snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE) == 0 else {
            throw CaptureError(.unsupportedFormat, "capture device '\(name)' cannot give 16-bit samples (S16_LE); try plughw: instead of hw:")
        }
        var channels: UInt32 = 1
        try check("snd_pcm_hw_params_set_channels_near", snd_pcm_hw_params_set_channels_near(pcm, params, &channels))
        var actualRate = UInt32(rate)
        var direction: Int32 = 0
        try check("snd_pcm_hw_params_set_rate_near", snd_pcm_hw_params_set_rate_near(pcm, params, &actualRate, &direction))
        var period = UInt32(periodTime.components.attoseconds / 1_000_000_000_000 + periodTime.components.seconds * 1_000_000)
        try check("snd_pcm_hw_params_set_period_time_near", snd_pcm_hw_params_set_period_time_near(pcm, params, &period, &direction))
        var buffer = UInt32(bufferTime.components.attoseconds / 1_000_000_000_000 + bufferTime.components.seconds * 1_000_000)
        try check("snd_pcm_hw_params_set_buffer_time_near", snd_pcm_hw_params_set_buffer_time_near(pcm, params, &buffer, &direction))
        try check("snd_pcm_hw_params", snd_pcm_hw_params(pcm, params))
        var periodFrames: snd_pcm_uframes_t = 0
        var bufferFrames: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_period_size(params, &periodFrames, &direction)
        snd_pcm_hw_params_get_buffer_size(params, &bufferFrames)
        guard actualRate >= 8_000 else {
            throw CaptureError(.unsupportedFormat, "capture device '\(name)' offers only \(actualRate) Hz; speech needs at least 8000 Hz")
        }
        try check("snd_pcm_prepare", snd_pcm_prepare(pcm))
        return CaptureFormat(sampleRate: Int(actualRate), channels: Int(channels), periodFrames: Int(periodFrames), bufferFrames: Int(bufferFrames))
    }

    /// Reads up to `frames` frames of interleaved samples, blocking until some arrive. Overruns
    /// and suspends are recovered (and overruns counted); a vanished device is an error.
    public func read(into buffer: inout [Int16], frames: Int) throws(CaptureError) -> Int {
        let needed = frames * format.channels
        if buffer.count < needed { buffer = [Int16](repeating: 0, count: needed) }
        while true {
            let got = buffer.withUnsafeMutableBytes { snd_pcm_readi(pcm, $0.baseAddress, snd_pcm_uframes_t(frames)) }
            if got >= 0 { return Int(got) }
            let code = Int32(got)
            switch code {
            case -EPIPE:
                overruns += 1
                let status = snd_pcm_prepare(pcm)
                guard status >= 0 else { throw CaptureError(device: name, function: "snd_pcm_prepare", code: status) }
            case -ESTRPIPE:
                // Suspended (system sleep): wait for the device to come back, then restart it.
                var status = snd_pcm_resume(pcm)
                while status == -EAGAIN {
                    usleep(100_000)
                    status = snd_pcm_resume(pcm)
                }
                if status < 0 { status = snd_pcm_prepare(pcm) }
                guard status >= 0 else { throw CaptureError(device: name, function: "snd_pcm_resume", code: status) }
            case -EINTR, -EAGAIN:
                continue
            default:
                throw CaptureError(device: name, function: "snd_pcm_readi", code: code)
            }
        }
    }

    /// The capture devices ALSA knows, like `arecord -L`.
    public static func list() -> [(name: String, description: String)] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [(String, String)] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            func value(_ key: String) -> String? {
                guard let raw = snd_device_name_get_hint(hint, key) else { return nil }
                defer { free(raw) }
                return String(cString: raw)
            }
            // IOID is absent for devices that do both directions, "Input" for capture only.
            guard let name = value("NAME"), value("IOID").map({ $0 == "Input" }) ?? true else { continue }
            devices.append((name, value("DESC")?.replacingOccurrences(of: "\n", with: ", ") ?? ""))
        }
        return devices
    }
}
