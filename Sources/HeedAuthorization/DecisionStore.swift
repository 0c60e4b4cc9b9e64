import Foundation
import GRDB

/// The per-user record of what the person decided, in SQLite.
///
/// The store is trusted only when it is the user's own and nobody else can change it: the
/// directory 0700 and the file 0600, both owned by the user, and the file a readable Heed
/// database. Anything else is an error that says what is wrong; the store is never silently
/// recreated over the user's data.
public final class DecisionStore: Sendable {
    public static let fileName = "decisions.sqlite"

    public let directory: URL
    public var path: URL { directory.appendingPathComponent(Self.fileName) }
    private let database: DatabaseQueue

    /// `$HEED_STATE_DIR`, else `$XDG_STATE_HOME/heed`, else `~/.local/state/heed`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit = environment["HEED_STATE_DIR"], !explicit.isEmpty { return URL(fileURLWithPath: explicit) }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return URL(fileURLWithPath: state).appendingPathComponent("heed") }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/state/heed")
    }

    /// Opens the store in `directory`, creating both (0700 / 0600) when they do not exist yet.
    public init(directory: URL) throws(AuthorizationError) {
        self.directory = directory
        let path = directory.appendingPathComponent(Self.fileName).path
        try Self.prepareDirectory(directory.path)
        let existed = FileManager.default.fileExists(atPath: path)
        if existed {
            try Self.checkOwnership(path, kind: "file", fix: "run `chmod 600 \(path)`")
        } else {
            // Create it 0600 ourselves: SQLite would use the umask, and its journal files copy the mode.
            let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            if fd < 0 && errno != EEXIST {
                throw .untrustedStore(path: path, problem: "cannot be created (\(String(cString: strerror(errno))))", fix: "check that \(directory.path) is writable")
            }
            if fd >= 0 { close(fd) }
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)  // other heed processes may be writing (a loaded board is slow)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            try Self.retryingWhileBusy {
                try database.writeWithoutTransaction { db in
                    // WAL lets readers (a running `heed listen` re-checking) proceed while another
                    // process writes. The mode is stored in the file, so only its creator sets it.
                    if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" {
                        _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                    }
                    guard try String.fetchOne(db, sql: "PRAGMA quick_check") == "ok" else {
                        throw StoreProblem.corrupt
                    }
                    // One statement, so one snapshot: read apart, another process could create
                    // the table between the two reads, and this one would call its store foreign.
                    let schema = try Row.fetchOne(db, sql: """
                        SELECT count(*) AS objects, count(CASE WHEN type = 'table' AND name = 'decisions' THEN 1 END) AS tables
                        FROM sqlite_master
                        """)
                    let objects: Int = schema?["objects"] ?? 0
                    let hasTable = (schema?["tables"] ?? 0) > 0
                    if !hasTable && existed && objects > 0 {
                        throw StoreProblem.foreign
                    }
                    try db.execute(sql: """
                        CREATE TABLE IF NOT EXISTS decisions (
                            app TEXT NOT NULL,
                            service TEXT NOT NULL,
                            status TEXT NOT NULL CHECK (status IN ('authorized', 'denied')),
                            source TEXT NOT NULL CHECK (source IN ('prompt', 'policy', 'command')),
                            decided_at REAL NOT NULL,
                            PRIMARY KEY (app, service)
                        )
                        """)
                }
            }
        } catch let problem as StoreProblem {
            throw problem.error(path: path)
        } catch let error as DatabaseError {
            throw Self.untrusted(path, error)
        } catch {
            throw .untrustedStore(path: path, problem: "\(error)", fix: Self.moveAsideFix(path))
        }
    }

    /// Several heed processes opening a new store at once can find it locked in ways SQLite's
    /// busy timeout does not wait out (changing the journal mode, recovering a WAL); try again.
    private static func retryingWhileBusy(_ body: () throws -> Void) throws {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED) && attempt < 50 {
                attempt += 1
                usleep(useconds_t(20_000 + attempt * 10_000))
            }
        }
    }

    private enum StoreProblem: Error {
        case corrupt, foreign

        func error(path: String) -> AuthorizationError {
            switch self {
            case .corrupt: return .untrustedStore(path: path, problem: "the database is damaged", fix: DecisionStore.moveAsideFix(path))
            case .foreign: return .untrustedStore(path: path, problem: "it is a SQLite database but not Heed's", fix: DecisionStore.moveAsideFix(path))
            }
        }
    }

    package static func moveAsideFix(_ path: String) -> String {
        "move it aside (`mv \(path) \(path).bad`) and decide again; Heed will not overwrite it"
    }

    private static func untrusted(_ path: String, _ error: DatabaseError) -> AuthorizationError {
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return .untrustedStore(path: path, problem: "it is not a readable SQLite database", fix: moveAsideFix(path))
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH:
            return .untrustedStore(path: path, problem: "it cannot be opened for reading and writing", fix: "give it back to your user with mode 600")
        default:
            return .untrustedStore(path: path, problem: error.message ?? "\(error.resultCode)", fix: moveAsideFix(path))
        }
    }

    private static func prepareDirectory(_ path: String) throws(AuthorizationError) {
        if !FileManager.default.fileExists(atPath: path) {
            // Parents get the usual mode; the store's own directory is private.
            let parent = (path as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw .untrustedStore(path: path, problem: "the directory cannot be created (\(String(cString: strerror(errno))))", fix: "create it with `mkdir -m 700 \(path)`")
            }
        }
        try checkOwnership(path, kind: "directory", fix: "run `chmod 700 \(path)`")
    }

    /// The user's own, and not writable by anyone else.
    private static func checkOwnership(_ path: String, kind: String, fix: String) throws(AuthorizationError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .untrustedStore(path: path, problem: "the \(kind) cannot be examined (\(String(cString: strerror(errno))))", fix: fix)
        }
        if info.st_uid != geteuid() {
            throw .untrustedStore(path: path, problem: "the \(kind) belongs to another user (uid \(info.st_uid))", fix: "use your own state directory (--state-dir) or `chown` it back")
        }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            throw .untrustedStore(path: path, problem: "the \(kind) can be changed by other users (mode \(String(info.st_mode & 0o777, radix: 8)))", fix: fix)
        }
    }

    // MARK: Reading and writing

    /// The recorded decision, or nil when none was made.
    public func decision(app: String, service: Service) throws(AuthorizationError) -> Decision? {
        try access { db in
            try Row.fetchOne(db, sql: "SELECT * FROM decisions WHERE app = ? AND service = ?", arguments: [app, service.rawValue])
                .flatMap(Self.decision(from:))
        }
    }

    public func all() throws(AuthorizationError) -> [Decision] {
        try access { db in
            try Row.fetchAll(db, sql: "SELECT * FROM decisions ORDER BY app, service").compactMap(Self.decision(from:))
        }
    }

    /// Records a decision; when this returns, it is on disk.
    public func record(app: String, service: Service, status: AuthorizationStatus, source: DecisionSource, date: Date = Date()) throws(AuthorizationError) {
        precondition(status == .authorized || status == .denied, "only authorized and denied are recorded")
        try access { db in
            try db.inTransaction {
                try db.execute(sql: """
                    INSERT INTO decisions (app, service, status, source, decided_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (app, service) DO UPDATE SET status = excluded.status, source = excluded.source, decided_at = excluded.decided_at
                    """, arguments: [app, service.rawValue, status.rawValue, source.rawValue, date.timeIntervalSince1970])
                return .commit
            }
        }
    }

    /// Forgets decisions (all apps when `app` is nil, all services when `service` is nil).
    /// Returns how many were forgotten.
    @discardableResult
    public func reset(app: String? = nil, service: Service? = nil) throws(AuthorizationError) -> Int {
        try access { db in
            try db.execute(sql: "DELETE FROM decisions WHERE (?1 IS NULL OR app = ?1) AND (?2 IS NULL OR service = ?2)",
                           arguments: [app, service?.rawValue])
            return db.changesCount
        }
    }

    /// Runs `body` on the store's connection (other per-user records, such as shortcuts, live in
    /// the same file so that one trust check covers them all).
    package func access<T>(_ body: (Database) throws -> T) throws(AuthorizationError) -> T {
        do {
            var result: T?
            try Self.retryingWhileBusy { result = try database.writeWithoutTransaction(body) }
            return result!
        } catch let error as DatabaseError {
            throw Self.untrusted(path.path, error)
        } catch {
            throw .untrustedStore(path: path.path, problem: "\(error)", fix: Self.moveAsideFix(path.path))
        }
    }

    private static func decision(from row: Row) -> Decision? {
        guard let service = Service(rawValue: row["service"]),
              let status = AuthorizationStatus(rawValue: row["status"]),
              let source = DecisionSource(rawValue: row["source"]) else { return nil }
        return Decision(app: row["app"], service: service, status: status, source: source,
                        date: Date(timeIntervalSince1970: row["decided_at"]))
    }
}
