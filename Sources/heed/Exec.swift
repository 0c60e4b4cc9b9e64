import Foundation
import Heed

/// Runs the user's command for each intent, one at a time in order, off the decoding thread.
///
/// The intent and slots arrive as environment variables (HEED_INTENT, HEED_SLOT_<NAME>,
/// HEED_TRANSCRIPT, HEED_CONFIDENCE) and the event's JSON line on stdin.
final class IntentCommandRunner: Sendable {
    let command: String
    private let queue = DispatchQueue(label: "heed-exec")

    init(command: String) {
        self.command = command
    }

    func run(for utterance: Utterance, json: String, completion: (@Sendable (_ succeeded: Bool) -> Void)? = nil) {
        guard let intent = utterance.intent else { return }
        run(for: intent, transcript: utterance.transcript, confidence: utterance.confidence, json: json, completion: completion)
    }

    /// Runs the command for `intent`; `completion` gets whether it exited 0 (on the runner's queue).
    func run(for intent: Intent, transcript: String, confidence: Double?, json: String, completion: (@Sendable (_ succeeded: Bool) -> Void)? = nil) {
        var environment = ProcessInfo.processInfo.environment
        environment["HEED_INTENT"] = intent.name
        environment["HEED_TRANSCRIPT"] = transcript
        if let confidence { environment["HEED_CONFIDENCE"] = String(format: "%.2f", confidence) }
        for (name, value) in intent.slots {
            environment["HEED_SLOT_" + name.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()] = value
        }
        let command = command
        let environmentForCommand = environment
        queue.async {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            process.environment = environmentForCommand
            let input = Pipe()
            process.standardInput = input
            do {
                try process.run()
                // A command that does not read its stdin closes the pipe: that is not an error.
                try? input.fileHandleForWriting.write(contentsOf: Data((json + "\n").utf8))
                try? input.fileHandleForWriting.close()
                process.waitUntilExit()
                if process.terminationStatus != 0 {
                    Terminal.error("--exec command exited with status \(process.terminationStatus) for intent \(intent.name)")
                }
                completion?(process.terminationStatus == 0)
            } catch {
                Terminal.error("--exec command could not start: \(error.localizedDescription)")
                completion?(false)
            }
        }
    }

    /// Waits for the commands already started.
    func finish() {
        queue.sync {}
    }
}

/// Says prompts and responses aloud with espeak-ng, one at a time, off the decoding thread.
final class Speaker: Sendable {
    private let queue = DispatchQueue(label: "heed-speak")

    func say(_ text: String) {
        queue.async {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["espeak-ng", "--", text]
            process.standardOutput = FileHandle.nullDevice
            do {
                try process.run()
                process.waitUntilExit()
            } catch {
                Terminal.error("--speak: espeak-ng could not start (install the espeak-ng package): \(error.localizedDescription)")
            }
        }
    }

    /// Waits until everything queued has been said.
    func finish() {
        queue.sync {}
    }
}
