import Foundation

/// Runs the built `heed` executable (it sits beside the test bundle in the build directory).
///
/// The suites that use it have a 40-minute time limit, to catch a hang, not to time anything:
/// a test's clock starts before it gets a thread, and the suite floors keep both cores busy for
/// minutes. With 5 minutes, a clean clone's 6-minute run failed 31 tests that were only waiting;
/// with 20, a clean clone's run on a busy machine (27 minutes of tests) failed 54.
public enum CLI {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    public static var executable: URL {
        let testBinary = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        return testBinary.deletingLastPathComponent().appendingPathComponent("heed")
    }

    /// Runs heed with a temporary state directory and the test-rig policy unless `environment`
    /// says otherwise.
    @discardableResult
    public static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], executable: String? = nil) throws -> Result {
        let environment = try TestAuthorization.cliEnvironment().merging(environment) { $1 }
        let process = Process()
        process.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? Self.executable
        process.arguments = arguments
        process.currentDirectoryURL = Fixtures.root
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Read both pipes while the process runs, so a full pipe never blocks it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs several shell scripts at once, each with heed as `$0`, and waits for all of them.
    /// Returns each one's exit status and stderr, in order.
    public static func runConcurrently(_ scripts: [String], environment: [String: String]) throws -> [(status: Int32, stderr: String)] {
        let environment = ProcessInfo.processInfo.environment.merging(try TestAuthorization.cliEnvironment().merging(environment) { $1 }) { $1 }
        let started = try scripts.map { script in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script, executable.path]
            process.currentDirectoryURL = Fixtures.root
            process.environment = environment
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            return (process, errors)
        }
        return started.map { process, errors in
            let messages = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, messages)
        }
    }
}
