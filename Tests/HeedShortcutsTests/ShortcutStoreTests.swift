import Foundation
import HeedAuthorization
import HeedIntents
import HeedTestSupport
import Testing
@testable import HeedShortcuts

func coffee(_ id: String = "coffee", phrase: String = "order my coffee") -> Shortcut {
    Shortcut(id: id, title: "Order my favorite coffee", phrase: phrase, intent: Intent(name: "orderDrink", slots: ["size": "large", "drink": "latte"]))
}

@Suite struct ShortcutStoreTests {
    func store() throws -> ShortcutStore {
        try ShortcutStore(directory: Fixtures.temporaryDirectory().appendingPathComponent("state"))
    }

    @Test func donationsAreKeptWithEveryTime() throws {
        let store = try store()
        let first = Date(timeIntervalSince1970: 1_700_000_000), second = first.addingTimeInterval(3600)
        try store.donate(coffee(), at: first)
        try store.donate(coffee(), at: second)
        let all = try store.all()
        #expect(all.count == 1)
        #expect(all[0].intent == Intent(name: "orderDrink", slots: ["size": "large", "drink": "latte"]))
        #expect(all[0].donations == [first, second])
        #expect(all[0].words == ["order", "my", "coffee"])
    }

    @Test func aNewDonationUpdatesThePhraseAndTitle() throws {
        let store = try store()
        try store.donate(coffee())
        var changed = coffee(phrase: "coffee time")
        changed.title = "Coffee"
        try store.donate(changed)
        let all = try store.all()
        #expect(all.map(\.phrase) == ["coffee time"])
        #expect(all[0].title == "Coffee")
        #expect(all[0].donations.count == 2)
    }

    @Test func deletingRemovesTheShortcutAndItsHistory() throws {
        let store = try store()
        try store.donate(coffee("a", phrase: "order my coffee"))
        try store.donate(coffee("b", phrase: "coffee time"))
        #expect(try store.delete(ids: ["a", "nope"]) == ["nope"])
        #expect(try store.all().map(\.id) == ["b"])
        let rows = try store.store.access { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM donations WHERE shortcut = 'a'") }
        #expect(rows == 0)
        try store.delete(ids: nil)
        #expect(try store.all().isEmpty)
    }

    @Test func anotherConnectionsWriteChangesTheVersion() throws {
        let directory = try Fixtures.temporaryDirectory().appendingPathComponent("state")
        let listener = try ShortcutStore(directory: directory), writer = try ShortcutStore(directory: directory)
        let before = try listener.version()
        #expect(try listener.version() == before)
        try writer.donate(coffee())
        #expect(try listener.version() != before)
        #expect(try listener.all().count == 1)
    }

    @Test func decisionsAndShortcutsShareTheFileWithoutDisturbingEachOther() throws {
        let directory = try Fixtures.temporaryDirectory().appendingPathComponent("state")
        let shortcuts = try ShortcutStore(directory: directory)
        try shortcuts.donate(coffee())
        let decisions = try DecisionStore(directory: directory)
        try decisions.record(app: "org.example", service: .microphone, status: .denied, source: .command)
        try decisions.reset()
        #expect(try ShortcutStore(directory: directory).all().count == 1)
    }
}

@Suite struct PhraseRuleTests {
    @Test func acceptsAShortPhraseAndWarnsAboutALongOne() throws {
        #expect(try PhraseRules.check(coffee(), others: [], meaningElsewhere: nil, missingWords: []).isEmpty)
        let warnings = try PhraseRules.check(coffee(phrase: "please order my usual coffee"), others: [], meaningElsewhere: nil, missingWords: [])
        #expect(warnings.count == 1 && warnings[0].contains("5 words"))
    }

    @Test func refusesWithAReason() throws {
        func refusal(_ shortcut: Shortcut, others: [Shortcut] = [], meaning: Intent? = nil, missing: [String] = []) -> String? {
            do { _ = try PhraseRules.check(shortcut, others: others, meaningElsewhere: meaning, missingWords: missing); return nil } catch { return error.message }
        }
        #expect(refusal(coffee(phrase: "  ")) == "the phrase is empty")
        #expect(refusal(coffee(phrase: "one two three four five six seven"))?.contains("at most 6") == true)
        #expect(refusal(coffee(phrase: "Hey Siri"))?.contains("reserved") == true)
        #expect(refusal(coffee(phrase: "call 911"))?.contains("reserved") == true)
        #expect(refusal(coffee(), missing: ["frappuccino"])?.contains("frappuccino") == true)
        #expect(refusal(coffee("a"), others: [coffee("b")])?.contains("shortcut 'b'") == true)
        #expect(refusal(coffee(phrase: "stop"), meaning: Intent(name: "stop"))?.contains("already means stop") == true)
        // The same shortcut again, or a phrase that means the same thing elsewhere, is fine.
        #expect(refusal(coffee("a"), others: [coffee("a")]) == nil)
        #expect(refusal(coffee(), meaning: coffee().intent) == nil)
    }
}

@Suite struct SuggestionTests {
    let now = Date(timeIntervalSince1970: 1_750_000_000)
    var calendar: Calendar { var c = Calendar(identifier: .gregorian); c.timeZone = TimeZone(identifier: "UTC")!; return c }

    /// A donation `daysAgo` days before now, at `hour`:00 UTC.
    func at(daysAgo: Int, hour: Int) -> Date {
        let midnight = calendar.startOfDay(for: now)
        return midnight.addingTimeInterval(Double(hour * 3600 - daysAgo * 86_400))
    }

    @Test func ranksByFrequencyRecencyAndTimeOfDay() throws {
        setenv("TZ", "UTC", 1); tzset()
        var morning = coffee("coffee"); morning.donations = (1...5).map { at(daysAgo: $0, hour: 8) }
        var evening = coffee("lights", phrase: "lights off"); evening.donations = (1...5).map { at(daysAgo: $0, hour: 22) }
        var once = coffee("soup", phrase: "order soup"); once.donations = [at(daysAgo: 1, hour: 8)]
        var old = coffee("tea", phrase: "make tea"); old.donations = (60...64).map { at(daysAgo: $0, hour: 8) }
        let never = coffee("never", phrase: "never done")
        let ranked = Suggestions().rank([never, old, once, evening, morning], now: now, minuteOfDay: 8 * 60 + 15, limit: 10)
        #expect(ranked.map(\.shortcut.id) == ["coffee", "soup", "lights", "tea"])
        #expect(ranked[0].usualMinute == 8 * 60)
        let atNight = Suggestions().rank([once, evening, morning], now: now, minuteOfDay: 22 * 60, limit: 1)
        #expect(atNight.map(\.shortcut.id) == ["lights"])
    }

    @Test func usualTimeWrapsAroundMidnight() {
        setenv("TZ", "UTC", 1); tzset()
        let dates = [at(daysAgo: 1, hour: 0).addingTimeInterval(-10 * 60), at(daysAgo: 2, hour: 0).addingTimeInterval(10 * 60)]
        #expect(Suggestions.usualMinute(dates) == 0)
    }
}
