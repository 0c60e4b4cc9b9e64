import ArgumentParser
import Foundation
import Heed

/// Options every command that touches permissions shares: which app, which state directory.
struct AppOptions: ParsableArguments {
    @Option(name: .customLong("app"), help: ArgumentHelp("The app's manifest (YAML); default: heed's own, Models/heed.app.yml. Commands that only name an app also take its id.", valueName: "FILE"))
    var app: String?

    @Option(help: ArgumentHelp("Where decisions are stored (default: $HEED_STATE_DIR, else $XDG_STATE_HOME/heed, else ~/.local/state/heed).", valueName: "DIR"))
    var stateDir: String?

    func authorizer() throws(AuthorizationError) -> Authorizer {
        try Authorizer.standard(stateDirectory: stateDir.map { URL(fileURLWithPath: $0) })
    }

    /// The permission gate of the commands that decode files: asks once, on a terminal. Without
    /// speech recognition authorized, prints why and ends the command with the gate's status.
    func speechRecognitionAuthorization() throws -> Authorization {
        do { return try authorizer().authorize(.speechRecognition, for: manifest(), prompter: TerminalPrompter.ifInteractive) } catch { throw error.exit() }
    }

    /// The manifest named by --app, or heed's own.
    func manifest() throws(AuthorizationError) -> AppManifest {
        if let app { return try AppManifest(contentsOf: URL(fileURLWithPath: app)) }
        guard let url = Self.ownManifest() else {
            throw .invalidManifest(path: "Models/heed.app.yml", problem: "heed's own manifest was not found beside the executable; pass --app FILE")
        }
        return try AppManifest(contentsOf: url)
    }

    /// The app id named by --app (a manifest file or an id), or heed's own.
    func appID() throws(AuthorizationError) -> String {
        if let app, !FileManager.default.fileExists(atPath: app), !app.hasSuffix(".yml"), !app.hasSuffix(".yaml") {
            guard AppManifest.isReverseDNS(app) else { throw .invalidManifest(path: app, problem: "neither a manifest file nor an app id") }
            return app
        }
        return try manifest().id
    }

    /// Models/heed.app.yml in the checkout the executable was built in, or an installed copy.
    static func ownManifest() -> URL? { ownModelFile("heed.app.yml") }

    /// Models/`name` in the checkout the executable was built in, or an installed copy.
    static func ownModelFile(_ name: String) -> URL? {
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("Models/" + name)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return ["/usr/local/share/heed/", "/usr/share/heed/"]
            .map { URL(fileURLWithPath: $0 + name) }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }
}

/// The one-time permission prompt, on the terminal.
struct TerminalPrompter: Prompter {
    /// A prompter only when a person can answer: stdin and stdout are a terminal.
    static var ifInteractive: TerminalPrompter? {
        isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0 ? TerminalPrompter() : nil
    }

    func ask(appName: String, service: Service, purpose: String) -> Bool? {
        let question = "\n\"\(appName)\" would like to use \(service.displayName).\n\(purpose)\n\nAllow? [y/N] "
        FileHandle.standardError.write(Data(question.utf8))
        guard let answer = readLine(strippingNewline: true) else { return nil }
        let allowed = ["y", "yes", "allow"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
        FileHandle.standardError.write(Data((allowed ? "Allowed.\n\n" : "Not allowed.\n\n").utf8))
        return allowed
    }
}

extension AuthorizationError {
    /// Prints the message and ends the command with this error's status.
    func exit() -> ExitCode {
        Terminal.error(description)
        return ExitCode(exitCode)
    }
}

extension HeedError {
    /// Prints the message and ends the command with this error's status.
    func exit() -> ExitCode {
        Terminal.error(message)
        return ExitCode(exitCode)
    }
}
