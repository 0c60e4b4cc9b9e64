import ArgumentParser
import Foundation
import Heed

struct Auth: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "See and change which apps may use the microphone and speech recognition.",
        discussion: """
            Like a phone's permission prompts: each app asks once, showing the purpose string from \
            its manifest; the answer is remembered per user. An administrator's policy \
            (\(AdminPolicy.systemPath), plus $HEED_POLICY for test rigs) can restrict a service \
            or authorize an app in advance; a user cannot lift a restriction.
            """,
        subcommands: [Status.self, Request.self, Grant.self, Deny.self, Reset.self],
        defaultSubcommand: Status.self
    )
}

extension Service: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

extension Auth {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the status of each service for an app (or every recorded decision with --all).")

        @OptionGroup var appOptions: AppOptions
        @Flag(help: "Every decision in the store, for all apps.") var all = false
        @Flag(help: "JSON Lines output.") var json = false

        func run() throws {
            do {
                let authorizer = try appOptions.authorizer()
                let decisions: [Decision]
                if all {
                    decisions = try authorizer.store.all()
                } else {
                    let app = try appOptions.appID()
                    decisions = try Service.allCases.map { (service) throws(AuthorizationError) in try authorizer.decision(service, for: app) }
                }
                for decision in decisions { print(json ? Self.jsonLine(decision) : Self.textLine(decision)) }
                if decisions.isEmpty && !json { print("no decisions recorded in \(authorizer.store.path.path)") }
            } catch {
                throw error.exit()
            }
        }

        static func jsonLine(_ d: Decision) -> String {
            let date = d.date.map { JSON.string(ISO8601DateFormatter().string(from: $0)) } ?? "null"
            return "{\"app\":\(JSON.string(d.app)),\"service\":\(JSON.string(d.service.rawValue)),\"status\":\(JSON.string(d.status.rawValue)),"
                + "\"decidedBy\":\(d.source.map { JSON.string($0.rawValue) } ?? "null"),\"decidedAt\":\(date)}"
        }

        static func textLine(_ d: Decision) -> String {
            var line = "\(d.app)  \(d.service.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)) \(d.status.rawValue)"
            if let source = d.source { line += "  (by \(source)" + (d.date.map { ", \(ISO8601DateFormatter().string(from: $0))" } ?? "") + ")" }
            return line
        }
    }

    struct Request: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask for permission (shows the one-time prompt on a terminal; later calls answer at once).",
            discussion: "Without a terminal nothing is asked: the status stays notDetermined and the command exits 77.")

        @OptionGroup var appOptions: AppOptions
        @Argument(help: "Services to request (default: every service the manifest has a purpose string for).")
        var services: [Service] = []

        func run() throws {
            do throws(AuthorizationError) {
                let app = try appOptions.manifest()
                let authorizer = try appOptions.authorizer()
                let wanted = services.isEmpty ? Service.allCases.filter { app.usage[$0.rawValue] != nil } : services
                guard !wanted.isEmpty else {
                    throw .missingPurpose(app: app.id, key: Service.speechRecognition.rawValue, manifest: app.source)
                }
                var failure: AuthorizationError?
                for service in wanted {
                    let status = try authorizer.request(service, for: app, prompter: TerminalPrompter.ifInteractive)
                    print("\(app.id)  \(service.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)) \(status.rawValue)")
                    failure = failure ?? AuthorizationError(status: status, app: app.id, service: service)
                }
                if let failure { throw failure }
            } catch {
                throw error.exit()
            }
        }
    }

    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allow an app to use services (recorded as decided by command).")
        @OptionGroup var appOptions: AppOptions
        @Argument(help: "Services: microphone, speech-recognition.") var services: [Service]

        func run() throws { try record(.authorized, services, appOptions) }
    }

    struct Deny: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forbid an app to use services; a running heed stops within a second.")
        @OptionGroup var appOptions: AppOptions
        @Argument(help: "Services: microphone, speech-recognition.") var services: [Service]

        func run() throws { try record(.denied, services, appOptions) }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget recorded answers, so the app is asked again (like tccutil reset).",
            discussion: "Without --app, forgets the answers of every app; without SERVICE, of every service.")

        @Option(help: ArgumentHelp("Only this app (its id or manifest file).", valueName: "ID")) var app: String?
        @Option(help: ArgumentHelp("Where decisions are stored.", valueName: "DIR")) var stateDir: String?
        @Argument(help: "Only this service.") var service: Service?

        func run() throws {
            do {
                let options = try AppOptions.parse((app.map { ["--app", $0] } ?? []) + (stateDir.map { ["--state-dir", $0] } ?? []))
                let appID = try app.map { _ throws(AuthorizationError) in try options.appID() }
                let forgotten = try options.authorizer().store.reset(app: appID, service: service)
                print("forgot \(forgotten) decision\(forgotten == 1 ? "" : "s")")
            } catch let error as AuthorizationError {
                throw error.exit()
            }
        }
    }

    static func record(_ status: AuthorizationStatus, _ services: [Service], _ options: AppOptions) throws {
        do {
            let app = try options.appID()
            let authorizer = try options.authorizer()
            for service in services {
                try authorizer.set(status, service, for: app)
                print("\(app)  \(service.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)) \(status.rawValue)")
            }
        } catch {
            throw error.exit()
        }
    }
}
