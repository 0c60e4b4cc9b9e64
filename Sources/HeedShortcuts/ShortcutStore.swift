import Foundation
import GRDB
import HeedAuthorization
import HeedIntents

/// Donated shortcuts, in the per-user store beside the permission decisions (one file, one
/// trust check; see `DecisionStore`).
public final class ShortcutStore: Sendable {
    public let store: DecisionStore

    public init(store: DecisionStore) throws(AuthorizationError) {
        self.store = store
        try store.access { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS shortcuts (
                    id TEXT PRIMARY KEY NOT NULL,
                    title TEXT NOT NULL,
                    phrase TEXT NOT NULL,
                    intent TEXT NOT NULL,
                    slots TEXT NOT NULL  -- JSON object of slot name to value
                );
                CREATE TABLE IF NOT EXISTS donations (
                    shortcut TEXT NOT NULL REFERENCES shortcuts(id) ON DELETE CASCADE,
                    donated_at REAL NOT NULL
                );
                CREATE INDEX IF NOT EXISTS donations_by_shortcut ON donations(shortcut);
                """)
        }
    }

    /// The store in `directory` (default: `DecisionStore.defaultDirectory()`).
    public convenience init(directory: URL? = nil) throws(AuthorizationError) {
        try self.init(store: DecisionStore(directory: directory ?? DecisionStore.defaultDirectory()))
    }

    /// Every shortcut with its donation times, by id.
    public func all() throws(AuthorizationError) -> [Shortcut] {
        try store.access { db in
            let times = try Row.fetchAll(db, sql: "SELECT shortcut, donated_at FROM donations ORDER BY donated_at")
                .reduce(into: [String: [Date]]()) { $0[$1["shortcut"], default: []].append(Date(timeIntervalSince1970: $1["donated_at"])) }
            return try Row.fetchAll(db, sql: "SELECT * FROM shortcuts ORDER BY id").map { row in
                let id: String = row["id"]
                let slotsJSON: String = row["slots"]
                let slots = (try? JSONDecoder().decode([String: String].self, from: Data(slotsJSON.utf8))) ?? [:]
                return Shortcut(id: id, title: row["title"], phrase: row["phrase"],
                                intent: Intent(name: row["intent"], slots: slots), donations: times[id] ?? [])
            }
        }
    }

    /// Records that the person performed `shortcut` at `date`: creates it, or updates its title,
    /// phrase and intent, and adds the time. When this returns, it is on disk.
    public func donate(_ shortcut: Shortcut, at date: Date = Date()) throws(AuthorizationError) {
        let slots = String(decoding: (try? JSONEncoder.sorted.encode(shortcut.intent.slots)) ?? Data("{}".utf8), as: UTF8.self)
        try store.access { db in
            try db.inTransaction {
                try db.execute(sql: """
                    INSERT INTO shortcuts (id, title, phrase, intent, slots) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET title = excluded.title, phrase = excluded.phrase,
                        intent = excluded.intent, slots = excluded.slots
                    """, arguments: [shortcut.id, shortcut.title, shortcut.phrase, shortcut.intent.name, slots])
                try db.execute(sql: "INSERT INTO donations (shortcut, donated_at) VALUES (?, ?)",
                               arguments: [shortcut.id, date.timeIntervalSince1970])
                return .commit
            }
        }
    }

    /// Deletes shortcuts and their donation history (all of them when `ids` is nil). Returns the
    /// ids that did not exist.
    @discardableResult
    public func delete(ids: [String]?) throws(AuthorizationError) -> [String] {
        try store.access { db in
            var missing: [String] = []
            try db.inTransaction {
                guard let ids else {
                    try db.execute(sql: "DELETE FROM donations")
                    try db.execute(sql: "DELETE FROM shortcuts")
                    return .commit
                }
                for id in ids {
                    try db.execute(sql: "DELETE FROM donations WHERE shortcut = ?", arguments: [id])
                    try db.execute(sql: "DELETE FROM shortcuts WHERE id = ?", arguments: [id])
                    if db.changesCount == 0 { missing.append(id) }
                }
                return .commit
            }
            return missing
        }
    }

    /// A number that changes whenever another process commits to the store (SQLite's
    /// `data_version`): cheap enough to poll every second from a running listener.
    public func version() throws(AuthorizationError) -> Int {
        try store.access { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}
