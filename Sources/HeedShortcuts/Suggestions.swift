import Foundation

/// Ranks shortcuts for "what would the person like to do now".
///
/// Each past donation counts once, discounted by its age (half as much every `halfLife`) and by
/// how far its time of day is from now (a bell over the day's circle, `timeOfDayWidth` wide).
/// Many, recent donations at about this hour rank first. A habit at another hour still counts
/// (`timeOfDayFloor`), but less than yesterday's action at this very hour; a habit of two
/// months ago has faded to a tenth.
public struct Suggestions: Sendable {
    public struct Suggestion: Equatable, Sendable {
        public var shortcut: Shortcut
        public var score: Double
        /// The usual time of day of its donations, in minutes after midnight (circular mean).
        public var usualMinute: Int
    }

    public var halfLife: TimeInterval = 14 * 86_400
    /// Standard deviation of the time-of-day bell, in minutes.
    public var timeOfDayWidth: Double = 90
    /// What a donation at the opposite time of day still counts for.
    public var timeOfDayFloor: Double = 0.2

    public init() {}

    /// The best `limit` shortcuts at `now`, whose time of day is `minuteOfDay` (local time).
    public func rank(_ shortcuts: [Shortcut], now: Date, minuteOfDay: Int, limit: Int = 5) -> [Suggestion] {
        shortcuts.compactMap { shortcut -> Suggestion? in
            guard !shortcut.donations.isEmpty else { return nil }
            var score = 0.0
            for date in shortcut.donations {
                let age = max(0, now.timeIntervalSince(date))
                let recency = pow(0.5, age / halfLife)
                let distance = Self.circularMinutes(Self.minuteOfDay(date), minuteOfDay)
                let bell = exp(-0.5 * pow(distance / timeOfDayWidth, 2))
                score += recency * (timeOfDayFloor + (1 - timeOfDayFloor) * bell)
            }
            return Suggestion(shortcut: shortcut, score: score, usualMinute: Self.usualMinute(shortcut.donations))
        }
        .sorted { $0.score != $1.score ? $0.score > $1.score : $0.shortcut.id < $1.shortcut.id }
        .prefix(max(0, limit)).map { $0 }
    }

    /// Local minutes after midnight.
    public static func minuteOfDay(_ date: Date, calendar: Calendar = .current) -> Int {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }

    static func circularMinutes(_ a: Int, _ b: Int) -> Double {
        let d = abs(a - b) % 1440
        return Double(min(d, 1440 - d))
    }

    /// The mean time of day on the day's circle (23:50 and 00:10 average to midnight).
    static func usualMinute(_ dates: [Date]) -> Int {
        var x = 0.0, y = 0.0
        for date in dates {
            let angle = Double(minuteOfDay(date)) / 1440 * 2 * .pi
            x += cos(angle)
            y += sin(angle)
        }
        var angle = atan2(y, x)
        if angle < 0 { angle += 2 * .pi }
        return Int((angle / (2 * .pi) * 1440).rounded()) % 1440
    }
}
