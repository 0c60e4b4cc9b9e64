import Foundation
import Testing

/// Where the tests find their recordings.
public enum Fixtures {
    /// The repository root (Tests/Support/Fixtures.swift is two levels down).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let audio = root.appendingPathComponent("Audio")
    public static let demo = audio.appendingPathComponent("demo")
    public static let builtins = audio.appendingPathComponent("builtins")

    /// The shared corpus beside the repository (real recordings and broken inputs).
    public static let corpus = root.deletingLastPathComponent().appendingPathComponent("shared/corpus/pocketsphinx-test-data")
    public static var corpusAvailable: Bool { FileManager.default.fileExists(atPath: corpus.path) }
    /// Skip message for tests that need the corpus.
    public static let corpusMissing: Comment = "skipped: ../shared/corpus/pocketsphinx-test-data is not present"

    public static func wavs(in directory: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "wav" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// A new empty directory, removed with everything in it when the test process exits (a run
    /// made some 650 of them, 20 MB, and left them all in /tmp).
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("heed-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        TemporaryDirectories.shared.add(url)
        return url
    }
}

/// The directories `Fixtures.temporaryDirectory` made. Tests run in parallel and share them with
/// subprocesses until the end, so they go at exit rather than after each test.
final class TemporaryDirectories: @unchecked Sendable {
    static let shared = TemporaryDirectories()
    private let lock = NSLock()
    private var urls: [URL] = []

    private init() {
        atexit { TemporaryDirectories.shared.removeAll() }
    }

    func add(_ url: URL) {
        lock.withLock { urls.append(url) }
    }

    func removeAll() {
        let made = lock.withLock { () -> [URL] in
            defer { urls = [] }
            return urls
        }
        for url in made { try? FileManager.default.removeItem(at: url) }
    }
}
