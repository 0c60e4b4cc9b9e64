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

/// A process the test runs in the background (`heed serve`, a broker), whose output is
/// gathered as it comes, so the test can wait for a line.
public final class BackgroundProcess: @unchecked Sendable {
    // @unchecked: the output is appended on the pipes' threads and read under `lock`.
    public let process = Process()
    private let lock = NSLock()
    private var out = Data(), err = Data()
    private let done = DispatchGroup()

    /// Starts `executable` (default: heed) with the test rig's permissions.
    public init(_ arguments: [String], environment: [String: String] = [:], executable: String? = nil) throws {
        let environment = try TestAuthorization.cliEnvironment().merging(environment) { $1 }
        process.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? CLI.executable
        process.arguments = arguments
        process.currentDirectoryURL = Fixtures.root
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (pipe, isOut) in [(stdout, true), (stderr, false)] {
            done.enter()
            Thread.detachNewThread { [self] in
                let handle = pipe.fileHandleForReading
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    lock.lock()
                    if isOut { out.append(chunk) } else { err.append(chunk) }
                    lock.unlock()
                }
                done.leave()
            }
        }
    }

    public var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    public var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }

    /// Waits until stdout or stderr has a line containing `text`; returns that line (nil on timeout).
    @discardableResult
    public func waitForLine(containing text: String, inStderr: Bool = false, timeout: Double = 60) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = (inStderr ? stderr : stdout).split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return (inStderr ? stderr : stdout).split(separator: "\n").first(where: { $0.contains(text) }).map(String.init)
    }

    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to end (SIGKILL after `timeout`); returns its status.
    @discardableResult
    public func wait(timeout: Double = 60) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        done.wait()
        return process.terminationStatus
    }

    /// Stops it and waits. Foundation starts children with SIGTERM blocked; heed unblocks it,
    /// other programs (a broker, a Python peer) need SIGKILL.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { self.signal(signal) }
        return wait()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

/// The Python the tests drive peers with (the PyPI `wyoming` client, paho-mqtt): the virtual
/// environment `make test` makes from Tests/requirements.txt.
public enum TestPython {
    public static let executable = Fixtures.root.appendingPathComponent(".build/test-venv/bin/python").path
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    public static let missing = "skipped: .build/test-venv is missing (make test makes it from Tests/requirements.txt)"

    /// A free TCP port on the loopback interface.
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
