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

    func run(for utterance: Utterance, json: String) {
        guard let intent = utterance.intent else { return }
        var environment = ProcessInfo.processInfo.environment
        environment["HEED_INTENT"] = intent.name
        environment["HEED_TRANSCRIPT"] = utterance.transcript
        environment["HEED_CONFIDENCE"] = String(format: "%.2f", utterance.confidence)
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
                input.fileHandleForWriting.write(Data((json + "\n").utf8))
                try? input.fileHandleForWriting.close()
                process.waitUntilExit()
                if process.terminationStatus != 0 {
                    Terminal.error("--exec command exited with status \(process.terminationStatus) for intent \(intent.name)")
                }
            } catch {
                Terminal.error("--exec command could not start: \(error.localizedDescription)")
            }
        }
    }

    /// Waits for the commands already started.
    func finish() {
        queue.sync {}
    }
}
