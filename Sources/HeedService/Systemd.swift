import CSystemd
import Foundation

/// Log lines on stderr, each with its sd-daemon level prefix (`<3>` error, `<4>` warning,
/// `<6>` info), which journald turns into priorities; on a terminal they read as they are.
public struct ServiceLog: Sendable {
    public init() {}

    public func error(_ message: String) { write(3, message) }
    public func warning(_ message: String) { write(4, message) }
    public func info(_ message: String) { write(6, message) }

    private func write(_ level: Int, _ message: String) {
        // One write per line, so lines from several threads never interleave.
        let line = "<\(level)>" + message.replacingOccurrences(of: "\n", with: " ") + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

/// Tells systemd how the service is doing (`Type=notify` units), through libsystemd's
/// sd_notify: nothing happens when `NOTIFY_SOCKET` is not set.
public enum Systemd {
    /// Capture and grammar are up.
    public static func ready(status: String) { notify("READY=1\nSTATUS=\(status)") }
    /// Audio keeps arriving (the unit's `WatchdogSec=` restarts the service when this stops).
    public static func watchdog() { notify("WATCHDOG=1") }
    public static func reloading() { notify("RELOADING=1") }
    public static func stopping() { notify("STOPPING=1") }

    /// How often to send `WATCHDOG=1`: half the unit's `WatchdogSec=`; nil when it has none.
    public static var watchdogInterval: Double? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return Double(microseconds) / 2e6
    }

    private static func notify(_ state: String) { _ = sd_notify(0, state) }
}
