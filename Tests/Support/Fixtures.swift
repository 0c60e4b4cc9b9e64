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

    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("heed-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
