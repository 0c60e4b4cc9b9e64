import ArgumentParser
import Foundation
import Heed
import HeedShortcuts

struct Shortcuts: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Donated shortcuts: phrases that run an app's action, and suggestions of what to do now.",
        discussion: """
            An app donates an action each time the person performs it. Its phrase then becomes part of \
            the grammar of `heed recognize` and `heed listen` (a running listener picks up donations \
            and deletions within a second) and yields the donated intent with its slots. Shortcuts \
            are kept per user in the same store as permission decisions.
            """,
        subcommands: [Donate.self, List.self, Delete.self, Suggest.self],
        defaultSubcommand: List.self
    )

    /// Exit status for a donation that breaks a phrase rule (EX_DATAERR).
    static let invalidExit: Int32 = 65
    /// Exit status for an id that is not stored (EX_NOINPUT).
    static let notFoundExit: Int32 = 66

    /// The shortcut store in `stateDir` (default: the standard state directory); a store that
    /// cannot be trusted ends the command.
    static func store(stateDir: String?) throws -> ShortcutStore {
        do { return try ShortcutStore(directory: stateDir.map { URL(fileURLWithPath: $0) }) } catch { throw error.exit() }
    }

    struct StoreOptions: ParsableArguments {
        @Option(help: ArgumentHelp("Where shortcuts and decisions are stored (default: $HEED_STATE_DIR, else $XDG_STATE_HOME/heed, else ~/.local/state/heed).", valueName: "DIR"))
        var stateDir: String?

        func open() throws -> ShortcutStore { try Shortcuts.store(stateDir: stateDir) }
    }

    static func describe(_ intent: Intent) -> String {
        ([intent.name] + intent.slots.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }

    static func jsonSlots(_ slots: [String: String]) -> String {
        "{" + slots.sorted { $0.key < $1.key }.map { "\(JSON.string($0.key)):\(JSON.string($0.value))" }.joined(separator: ",") + "}"
    }

    /// "08:05" for 485 minutes after midnight.
    static func clock(_ minute: Int) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(minute / 60)):\(two(minute % 60))"
    }

    static func timestamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static func jsonLine(_ s: Shortcut, extra: String = "") -> String {
        "{\"id\":\(JSON.string(s.id)),\"title\":\(JSON.string(s.title)),\"phrase\":\(JSON.string(s.phrase)),"
            + "\"intent\":\(JSON.string(s.intent.name)),\"slots\":\(jsonSlots(s.intent.slots)),"
            + "\"donations\":[\(s.donations.map { JSON.string(timestamp($0)) }.joined(separator: ","))]\(extra)}"
    }
}

extension Shortcuts {
    struct Donate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record that the person performed an action (call it each time they do, and only then).",
            discussion: """
                The phrase must be 1 to 6 words (3 or fewer is easier to say), every word in the \
                pronunciation dictionary, not reserved (wake phrases, emergency calls), not another \
                shortcut's, and not a built-in command or context expression that means something \
                else (pass the app's contexts with --context to check against them).
                """)

        @Option(help: "The action's persistent identifier; donating it again adds a time and updates the rest.") var id: String
        @Option(help: "What the person sees in lists.") var title: String
        @Option(help: "What the person says to run it.") var phrase: String
        @Option(help: "The intent the phrase yields.") var intent: String
        @Option(name: .customLong("slot"), help: ArgumentHelp("A slot value the intent carries (repeatable).", valueName: "NAME=VALUE"))
        var slots: [String] = []
        @Option(help: ArgumentHelp("When it was performed (ISO 8601; default now), for importing history.", valueName: "DATE"))
        var date: String?
        @OptionGroup var vocabularyOptions: VocabularyOptions
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            if intent.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--intent is empty") }
            if id.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--id is empty") }
            for slot in slots where !slot.contains("=") || slot.hasPrefix("=") { throw ValidationError("--slot takes NAME=VALUE, not '\(slot)'") }
            if let date, ISO8601DateFormatter().date(from: date) == nil { throw ValidationError("--date takes an ISO 8601 time such as 2026-11-22T08:15:00Z, not '\(date)'") }
        }

        func run() throws {
            var values: [String: String] = [:]
            for slot in slots {
                let parts = slot.split(separator: "=", maxSplits: 1).map(String.init)
                values[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            let shortcut = Shortcut(id: id, title: title, phrase: phrase, intent: Intent(name: intent, slots: values))
            let store = try storeOptions.open()
            var options = RecognizerOptions()
            vocabularyOptions.apply(to: &options)
            do {
                let others = try store.all()
                let warnings = try CommandRecognizer.check(shortcut, others: others, vocabulary: try vocabularyOptions.vocabulary(), options: options)
                for warning in warnings { Terminal.error("warning: \(warning)") }
                try store.donate(shortcut, at: date.flatMap { ISO8601DateFormatter().date(from: $0) } ?? Date())
                let count = (try store.all().first { $0.id == id }?.donations.count) ?? 1
                print("donated \(id): \"\(phrase)\" -> \(Shortcuts.describe(shortcut.intent)) (\(count) donation\(count == 1 ? "" : "s"))")
            } catch let error as ShortcutError {
                Terminal.error(error.message)
                throw ExitCode(Shortcuts.invalidExit)
            } catch let error as AuthorizationError {
                throw error.exit()
            } catch let error as HeedError {
                throw error.exit()
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every donated shortcut.")
        @Flag(help: "JSON Lines output.") var json = false
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let store = try storeOptions.open()
            let all: [Shortcut]
            do { all = try store.all() } catch { throw error.exit() }
            for s in all {
                if json {
                    print(Shortcuts.jsonLine(s))
                } else {
                    let last = s.donations.last.map { ", last \(Shortcuts.timestamp($0))" } ?? ""
                    print("\(s.id)  \"\(s.phrase)\" -> \(Shortcuts.describe(s.intent))  (\(s.title); \(s.donations.count)x\(last))")
                }
            }
            if all.isEmpty && !json { print("no shortcuts donated (store: \(store.store.path.path))") }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete shortcuts and their history; their phrases stop being recognized at once.",
            discussion: "Ids that are not stored are reported and make the command exit \(Shortcuts.notFoundExit); the others are still deleted.")
        @Option(help: "A shortcut to delete (repeatable).") var id: [String] = []
        @Flag(help: "Delete every shortcut.") var all = false
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            if all == !id.isEmpty { throw ValidationError("give --id ID (repeatable) or --all") }
        }

        func run() throws {
            let store = try storeOptions.open()
            do {
                let before = try store.all().count
                let missing = try store.delete(ids: all ? nil : id)
                let deleted = before - (try store.all().count)
                print("deleted \(deleted) shortcut\(deleted == 1 ? "" : "s")")
                if !missing.isEmpty {
                    Terminal.error("no shortcut with id \(missing.map { "'\($0)'" }.joined(separator: ", "))")
                    throw ExitCode(Shortcuts.notFoundExit)
                }
            } catch let error as AuthorizationError {
                throw error.exit()
            }
        }
    }

    struct Suggest: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Shortcuts that fit the moment: done often, recently, and at about this time of day.")
        @Option(help: ArgumentHelp("Rank for this local time of day instead of now.", valueName: "HH:MM")) var at: String?
        @Option(help: "How many to show.") var limit = 5
        @Flag(help: "JSON Lines output.") var json = false
        @OptionGroup var storeOptions: StoreOptions

        func minuteOfDay() -> Int? {
            guard let at else { return Suggestions.minuteOfDay(Date()) }
            let parts = at.split(separator: ":").map { Int($0) }
            guard parts.count == 2, let h = parts[0], let m = parts[1], (0..<24).contains(h), (0..<60).contains(m) else { return nil }
            return h * 60 + m
        }

        func validate() throws {
            if minuteOfDay() == nil { throw ValidationError("--at takes a time of day as HH:MM (00:00 to 23:59), not '\(at ?? "")'") }
            if limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() throws {
            let store = try storeOptions.open()
            let all: [Shortcut]
            do { all = try store.all() } catch { throw error.exit() }
            let ranked = Suggestions().rank(all, now: Date(), minuteOfDay: minuteOfDay()!, limit: limit)
            for (rank, s) in ranked.enumerated() {
                let usual = Shortcuts.clock(s.usualMinute)
                if json {
                    print(Shortcuts.jsonLine(s.shortcut, extra: ",\"score\":\(JSON.number(s.score, decimals: 3)),\"usually\":\(JSON.string(usual))"))
                } else {
                    print("\(rank + 1). \(s.shortcut.title)  say \"\(s.shortcut.phrase)\"  (\(s.shortcut.donations.count)x, usually \(usual), score \(String(format: "%.2f", s.score)))")
                }
            }
            if ranked.isEmpty && !json { print("nothing to suggest: no shortcuts donated yet") }
        }
    }
}
