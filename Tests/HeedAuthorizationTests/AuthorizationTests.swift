import Foundation
import HeedTestSupport
import Testing
@testable import HeedAuthorization

/// Answers prompts from a script and counts them.
final class ScriptedPrompter: Prompter, @unchecked Sendable {
    var answers: [Bool?]
    var asked: [(String, Service, String)] = []
    init(_ answers: [Bool?]) { self.answers = answers }
    func ask(appName: String, service: Service, purpose: String) -> Bool? {
        asked.append((appName, service, purpose))
        return answers.isEmpty ? nil : answers.removeFirst()
    }
}

func mode(_ path: String) -> mode_t {
    var info = stat()
    stat(path, &info)
    return info.st_mode & 0o777
}

@Suite struct ManifestTests {
    @Test func readsAManifest() throws {
        let app = try AppManifest(yaml: """
            id: com.example.todo
            name: Todo
            usage:
              speech-recognition: "Lets you mark an item as finished by saying Done."
            """, source: "todo.yml")
        #expect(app.id == "com.example.todo")
        #expect(try app.purpose(for: .speechRecognition) == "Lets you mark an item as finished by saying Done.")
    }

    @Test func missingOrEmptyPurposeIsRefusedNamingTheKey() throws {
        let app = try AppManifest(yaml: "id: com.example.a\nname: A\nusage:\n  microphone: \"   \"\n", source: "a.yml")
        #expect(throws: AuthorizationError.missingPurpose(app: "com.example.a", key: "speech-recognition", manifest: "a.yml")) { try app.purpose(for: .speechRecognition) }
        #expect(throws: AuthorizationError.missingPurpose(app: "com.example.a", key: "microphone", manifest: "a.yml")) { try app.purpose(for: .microphone) }
    }

    @Test(arguments: [
        ("name: A\n", "`id` must be a reverse-DNS identifier"),
        ("id: notdns\nname: A\n", "`id` must be a reverse-DNS identifier"),
        ("id: com.a\n", "`name` must be a non-empty string"),
        ("id: com.a\nname: A\nusage:\n  camera: x\n", "unknown service 'camera'"),
        ("id: com.a\nname: A\ncolour: red\n", "unknown key 'colour'"),
        ("id: [unclosed\n", "not valid YAML"),
        ("- just a list\n", "expected a mapping"),
    ])
    func invalidManifests(yaml: String, problem: String) {
        do {
            _ = try AppManifest(yaml: yaml, source: "m.yml")
            Issue.record("accepted: \(yaml)")
        } catch {
            #expect(error.description.contains(problem), "\(error)")
            #expect(error.exitCode == 78)
        }
    }

    @Test func heedsOwnManifestIsValid() throws {
        let app = try AppManifest(contentsOf: Fixtures.root.appendingPathComponent("Models/heed.app.yml"))
        #expect(app.id == "org.heed.cli")
        for service in Service.allCases { #expect(!(try app.purpose(for: service)).isEmpty) }
    }
}

@Suite struct PolicyTests {
    @Test func restrictionsAndPreauthorizations() throws {
        let policy = try AdminPolicy.parse("""
            restrict:
              - service: microphone
              - service: speech-recognition
                apps: [com.example.toy]
            authorize:
              - app: com.example.kiosk
                services: [speech-recognition]
            """, path: "p.yml")
        #expect(policy.isRestricted(.microphone, for: "any.app"))
        #expect(policy.isRestricted(.speechRecognition, for: "com.example.toy"))
        #expect(!policy.isRestricted(.speechRecognition, for: "com.example.kiosk"))
        #expect(policy.isPreauthorized(.speechRecognition, for: "com.example.kiosk"))
        #expect(!policy.isPreauthorized(.microphone, for: "com.example.kiosk"))
    }

    @Test func emptyPolicyRestrictsNothing() throws {
        #expect(try AdminPolicy.parse("", path: "p.yml") == AdminPolicy())
    }

    @Test(arguments: [
        ("restrict:\n  - service: camera\n", "unknown service 'camera'"),
        ("allow: everything\n", "unknown key 'allow'"),
        ("authorize:\n  - app: com.a\n", "needs an app and a list of services"),
        ("restrict: microphone\n", "restrict must be a list"),
        ("restrict: [\n", "not valid YAML"),
    ])
    func invalidPolicies(text: String, problem: String) {
        do {
            _ = try AdminPolicy.parse(text, path: "p.yml")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description.contains(problem), "\(error)")
        }
    }

    @Test func policyOthersCanChangeIsRefused() throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("policy.yml")
        try "authorize:\n  - app: com.a\n    services: [microphone]\n".write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o666)
        #expect(performing: { try AdminPolicy.load(paths: [file.path]) }, throws: { error in
            (error as? AuthorizationError)?.description.contains("can be changed by other users (mode 666)") == true
        })
        chmod(file.path, 0o644)
        #expect(try AdminPolicy.load(paths: [file.path, "/nonexistent/policy.yml"]).isPreauthorized(.microphone, for: "com.a"))
    }
}

@Suite struct DecisionStoreTests {
    @Test func createsPrivateDirectoryAndFile() throws {
        let directory = try Fixtures.temporaryDirectory().appendingPathComponent("nested/heed")
        let store = try DecisionStore(directory: directory)
        #expect(mode(directory.path) == 0o700)
        #expect(mode(store.path.path) == 0o600)
    }

    @Test func decisionsPersistAcrossOpens() throws {
        let directory = try Fixtures.temporaryDirectory()
        let store = try DecisionStore(directory: directory)
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        try store.record(app: "com.a", service: .microphone, status: .denied, source: .prompt, date: date)
        try store.record(app: "com.b", service: .speechRecognition, status: .authorized, source: .command, date: date)
        let reopened = try DecisionStore(directory: directory)
        #expect(try reopened.decision(app: "com.a", service: .microphone) == Decision(app: "com.a", service: .microphone, status: .denied, source: .prompt, date: date))
        #expect(try reopened.all().count == 2)
        #expect(try reopened.reset(app: "com.a") == 1)
        #expect(try reopened.decision(app: "com.a", service: .microphone) == nil)
        #expect(try reopened.reset() == 1)
        #expect(try reopened.all().isEmpty)
    }

    @Test func corruptStoreIsRefusedAndLeftAlone() throws {
        let directory = try Fixtures.temporaryDirectory()
        let file = directory.appendingPathComponent(DecisionStore.fileName)
        let garbage = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        try garbage.write(to: file)
        chmod(file.path, 0o600)
        #expect(performing: { try DecisionStore(directory: directory) }, throws: { error in
            let text = (error as? AuthorizationError)?.description ?? ""
            return text.contains("not trusted") && text.contains("move it aside") && (error as? AuthorizationError)?.exitCode == 77
        })
        #expect(try Data(contentsOf: file) == garbage)
    }

    @Test func damagedDatabaseIsRefusedAndLeftAlone() throws {
        let directory = try Fixtures.temporaryDirectory()
        let store = try DecisionStore(directory: directory)
        for n in 0..<200 { try store.record(app: "com.app\(n)", service: .microphone, status: .authorized, source: .command) }
        // Overwrite a page in the middle of the file, as a failing disk might.
        let handle = try FileHandle(forUpdating: store.path)
        try handle.seek(toOffset: 4096 + 100)
        handle.write(Data(repeating: 0xAB, count: 2000))
        try handle.close()
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("decisions.sqlite-wal"))
        let before = try Data(contentsOf: store.path)
        #expect(throws: AuthorizationError.self) {
            let reopened = try DecisionStore(directory: directory)
            _ = try reopened.all()
        }
        #expect(try Data(contentsOf: store.path) == before)
    }

    @Test func someoneElsesDatabaseIsNotTakenOver() throws {
        let directory = try Fixtures.temporaryDirectory()
        let file = directory.appendingPathComponent(DecisionStore.fileName)
        _ = try DecisionStore(directory: Fixtures.temporaryDirectory())  // makes sure SQLite works here
        let other = try DecisionStore(directory: directory)
        try other.record(app: "com.a", service: .microphone, status: .denied, source: .command)
        _ = other
        // Replace it with a database that has other tables only.
        try FileManager.default.removeItem(at: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sqlite3; c=sqlite3.connect('\(file.path)'); c.execute('create table notes(x)'); c.commit()"]
        try process.run(); process.waitUntilExit()
        chmod(file.path, 0o600)
        #expect(performing: { try DecisionStore(directory: directory) }, throws: { error in
            (error as? AuthorizationError)?.description.contains("not Heed's") == true
        })
    }

    @Test func storeOthersCanChangeIsRefused() throws {
        let directory = try Fixtures.temporaryDirectory()
        let store = try DecisionStore(directory: directory)
        chmod(store.path.path, 0o666)
        #expect(performing: { try DecisionStore(directory: directory) }, throws: { error in
            (error as? AuthorizationError)?.description.contains("can be changed by other users (mode 666)") == true
        })
        chmod(store.path.path, 0o600)
        chmod(directory.path, 0o777)
        #expect(performing: { try DecisionStore(directory: directory) }, throws: { error in
            (error as? AuthorizationError)?.description.contains("the directory can be changed by other users") == true
        })
    }

    @Test(.enabled(if: geteuid() == 0, "skipped: needs root to give the file to another user"))
    func storeOwnedByAnotherUserIsRefused() throws {
        let directory = try Fixtures.temporaryDirectory()
        let store = try DecisionStore(directory: directory)
        chown(store.path.path, 65534, 65534)
        #expect(performing: { try DecisionStore(directory: directory) }, throws: { error in
            (error as? AuthorizationError)?.description.contains("belongs to another user") == true
        })
    }
}

@Suite struct AuthorizerTests {
    let app = AppManifest(id: "com.example.todo", name: "Todo", usage: ["speech-recognition": "Lets you say Done."])

    func authorizer(_ policy: AdminPolicy = AdminPolicy()) throws -> Authorizer {
        Authorizer(store: try DecisionStore(directory: Fixtures.temporaryDirectory()), policy: policy)
    }

    @Test func asksOnceAndRemembers() throws {
        let authorizer = try authorizer()
        let prompter = ScriptedPrompter([true])
        #expect(try authorizer.request(.speechRecognition, for: app, prompter: prompter) == .authorized)
        #expect(try authorizer.request(.speechRecognition, for: app, prompter: prompter) == .authorized)
        #expect(prompter.asked.count == 1)
        #expect(prompter.asked.first?.0 == "Todo")
        #expect(prompter.asked.first?.2 == "Lets you say Done.")
        #expect(try authorizer.decision(.speechRecognition, for: app.id).source == .prompt)
    }

    @Test func dontAllowIsRemembered() throws {
        let authorizer = try authorizer()
        let prompter = ScriptedPrompter([false])
        #expect(try authorizer.request(.speechRecognition, for: app, prompter: prompter) == .denied)
        #expect(throws: AuthorizationError.denied(app: app.id, service: .speechRecognition)) {
            try authorizer.authorize(.speechRecognition, for: app, prompter: prompter)
        }
        #expect(prompter.asked.count == 1)
    }

    @Test func withoutAPrompterNothingIsGuessed() throws {
        let authorizer = try authorizer()
        #expect(try authorizer.request(.speechRecognition, for: app, prompter: nil) == .notDetermined)
        #expect(throws: AuthorizationError.notDetermined(app: app.id, service: .speechRecognition)) {
            try authorizer.authorize(.speechRecognition, for: app, prompter: nil)
        }
        // An unanswered prompt (end of input) decides nothing either.
        #expect(try authorizer.request(.speechRecognition, for: app, prompter: ScriptedPrompter([nil])) == .notDetermined)
        #expect(try authorizer.store.all().isEmpty)
    }

    @Test func missingPurposeIsRefusedBeforeAsking() throws {
        let authorizer = try authorizer()
        let prompter = ScriptedPrompter([true])
        #expect(throws: AuthorizationError.missingPurpose(app: app.id, key: "microphone", manifest: "(built in)")) {
            try authorizer.request(.microphone, for: app, prompter: prompter)
        }
        #expect(prompter.asked.isEmpty)
    }

    @Test func restrictionWinsOverEverything() throws {
        var policy = AdminPolicy()
        policy.restrictions = [.init(service: .speechRecognition, apps: [app.id])]
        policy.authorizations[app.id] = [.speechRecognition]
        let authorizer = try authorizer(policy)
        try authorizer.store.record(app: app.id, service: .speechRecognition, status: .authorized, source: .prompt)
        let prompter = ScriptedPrompter([true])
        #expect(try authorizer.request(.speechRecognition, for: app, prompter: prompter) == .restricted)
        #expect(prompter.asked.isEmpty)
        #expect(throws: AuthorizationError.restricted(app: app.id, service: .speechRecognition)) {
            try authorizer.set(.authorized, .speechRecognition, for: app.id)
        }
    }

    @Test func preauthorizationUntilThePersonSaysNo() throws {
        var policy = AdminPolicy()
        policy.authorizations[app.id] = [.speechRecognition]
        let authorizer = try authorizer(policy)
        #expect(try authorizer.decision(.speechRecognition, for: app.id) == Decision(app: app.id, service: .speechRecognition, status: .authorized, source: .policy, date: nil))
        try authorizer.set(.denied, .speechRecognition, for: app.id)
        #expect(try authorizer.decision(.speechRecognition, for: app.id).status == .denied)
    }

    @Test func revocationFromAnotherProcessIsNoticedWithinASecond() throws {
        let directory = try Fixtures.temporaryDirectory()
        let authorizer = Authorizer(store: try DecisionStore(directory: directory), policy: AdminPolicy())
        try authorizer.set(.authorized, .speechRecognition, for: app.id)
        let authorization = try authorizer.authorize(.speechRecognition, for: app, prompter: nil)
        try authorization.verify()
        // Another process (its own connection) says no.
        try DecisionStore(directory: directory).record(app: app.id, service: .speechRecognition, status: .denied, source: .command)
        Thread.sleep(forTimeInterval: 0.6)
        #expect(throws: AuthorizationError.denied(app: app.id, service: .speechRecognition)) { try authorization.verify() }
    }
}
