import Foundation
import Synchronization

/// A CMUdict-format pronunciation dictionary kept as its file's bytes with a hash index, so
/// the decoder is given only the words its grammars use.
///
/// PocketSphinx's own loader turns every one of cmudict's 134 000 entries into C structures:
/// about 22 MB and 0.1 s at every start, for command grammars that use a few hundred words.
/// The file's bytes and this index take about 4 MB and a few milliseconds.
package final class Lexicon: Sendable {
    package struct Entry: Equatable {
        /// As the file spells it: "read", or "read(2)" for an alternate pronunciation.
        package var name: String
        package var phones: String
    }

    let source: URL
    private let bytes: [UInt8]
    /// Open addressing over the hash of each line's base word: a line's start plus one (0: empty).
    private let slots: [Int32]

    convenience init(contentsOf url: URL) throws(RecognitionError) {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw RecognitionError(kind: .dictionary, function: "Lexicon", message: "cannot read the pronunciation dictionary \(url.path)")
        }
        try self.init(bytes: [UInt8](data), source: url)
    }

    /// A dictionary's text as bytes (`source` only names it in errors).
    package init(bytes: [UInt8], source: URL) throws(RecognitionError) {
        guard bytes.count < Int(Int32.max) else {
            throw RecognitionError(kind: .dictionary, function: "Lexicon", message: "\(source.path) is too large for a pronunciation dictionary")
        }
        self.source = source
        self.bytes = bytes
        var lineStarts: [Int32] = []
        Self.forEachLine(bytes) { lineStarts.append(Int32($0)) }
        var capacity = 1024
        while capacity < lineStarts.count * 2 { capacity *= 2 }
        var slots = [Int32](repeating: 0, count: capacity)
        bytes.withUnsafeBufferPointer { text in
            for start in lineStarts {
                let base = Self.baseWord(in: text, lineStart: Int(start))
                var slot = Self.hash(text[base]) & (capacity - 1)
                while slots[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
                slots[slot] = start + 1
            }
        }
        self.slots = slots
    }

    /// The entries for `word`: its own line first, then its alternates in file order. Empty when
    /// the dictionary does not have the word.
    package func entries(for word: String) -> [Entry] {
        let key = Array(word.utf8)
        guard !key.isEmpty else { return [] }
        var found: [(start: Int, entry: Entry)] = []
        bytes.withUnsafeBufferPointer { text in
            var slot = key.withUnsafeBufferPointer { Self.hash($0[...]) } & (slots.count - 1)
            while slots[slot] != 0 {
                let start = Int(slots[slot] - 1)
                let base = Self.baseWord(in: text, lineStart: start)
                if text[base].elementsEqual(key), let entry = Self.entry(in: text, lineStart: start) {
                    found.append((start, entry))
                }
                slot = (slot + 1) & (slots.count - 1)
            }
        }
        // The base spelling before its alternates: PocketSphinx refuses "word(2)" without "word".
        return found.sorted { ($0.entry.name == word ? 0 : 1, $0.start) < ($1.entry.name == word ? 0 : 1, $1.start) }.map(\.entry)
    }

    /// One lexicon per file for the whole process: decoders on several threads share it.
    static func shared(_ url: URL) throws(RecognitionError) -> Lexicon {
        let key = url.standardizedFileURL.path
        if let lexicon = cache.withLock({ $0[key] }) { return lexicon }
        let lexicon = try Lexicon(contentsOf: url)
        return cache.withLock { cache in
            if let existing = cache[key] { return existing }
            cache[key] = lexicon
            return lexicon
        }
    }

    private static let cache = Mutex<[String: Lexicon]>([:])

    // MARK: Reading lines

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }

    /// Calls `body` with the start of every line that holds an entry (not blank, not a ";;" comment).
    private static func forEachLine(_ bytes: [UInt8], _ body: (Int) -> Void) {
        bytes.withUnsafeBufferPointer { text in
            var start = 0
            while start < text.count {
                var end = start
                while end < text.count && text[end] != 0x0A { end += 1 }
                let isComment = end - start >= 2 && text[start] == 0x3B && text[start + 1] == 0x3B
                if end > start, !isSpace(text[start]), !isComment { body(start) }
                start = end + 1
            }
        }
    }

    /// The first field of the line without an "(n)" suffix.
    private static func baseWord(in text: UnsafeBufferPointer<UInt8>, lineStart: Int) -> Range<Int> {
        var end = lineStart
        while end < text.count, text[end] != 0x0A, !isSpace(text[end]) { end += 1 }
        if end - lineStart > 3, text[end - 1] == 0x29 /* ) */ {
            var open = end - 2
            while open > lineStart, text[open] != 0x28 /* ( */ { open -= 1 }
            if open > lineStart { return lineStart..<open }
        }
        return lineStart..<end
    }

    private static func entry(in text: UnsafeBufferPointer<UInt8>, lineStart: Int) -> Entry? {
        var lineEnd = lineStart
        while lineEnd < text.count, text[lineEnd] != 0x0A { lineEnd += 1 }
        let line = String(decoding: text[lineStart..<lineEnd], as: UTF8.self)
        var fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        // Some CMUdict copies end an entry with a "# comment".
        if let comment = fields.firstIndex(where: { $0.hasPrefix("#") }) { fields = Array(fields[..<comment]) }
        guard fields.count >= 2 else { return nil }
        return Entry(name: String(fields[0]), phones: fields.dropFirst().joined(separator: " "))
    }

    /// FNV-1a.
    private static func hash(_ word: Slice<UnsafeBufferPointer<UInt8>>) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in word { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash)
    }
}
