import Foundation
import Synchronization

/// A CMUdict-format pronunciation dictionary as a hash index of its file's lines, so the
/// decoder is given only the words its grammars use.
///
/// PocketSphinx's own loader turns every one of cmudict's 134 000 entries into C structures:
/// about 22 MB and 0.1 s at every start, for command grammars that use a few hundred words.
/// The index takes 1 MB and a few milliseconds to build; a word's lines are read back from the
/// file when it is looked up (a few hundred reads for a grammar), so the 3.3 MB of text is not
/// kept in memory. A file changed after indexing cannot mislead it: a line read back must still
/// start with the word looked up.
package final class Lexicon: Sendable {
    package struct Entry: Equatable {
        /// As the file spells it: "read", or "read(2)" for an alternate pronunciation.
        package var name: String
        package var phones: String
    }

    let source: URL
    /// Where the lines are read back from: an open file, read with pread (which keeps no shared
    /// offset, so lookups may run on several threads at once), or else text given in memory
    /// (tests, the fuzzer). Two plain optionals rather than an enum: an enum with two payloads
    /// keeps its case in the reference's spare bits, and LeakSanitizer then cannot see that the
    /// cached lexicon still holds its file, and reports the descriptor as leaked.
    private let file: FileDescriptor?
    private let bytes: [UInt8]?
    /// Open addressing over the hash of each line's base word: a line's start plus one (0: empty).
    private let slots: [Int32]

    /// Closes the file when the lexicon goes away.
    private final class FileDescriptor: Sendable {
        let raw: Int32
        init(_ raw: Int32) { self.raw = raw }
        deinit { close(raw) }
    }

    convenience init(contentsOf url: URL) throws(RecognitionError) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        let file = descriptor >= 0 ? FileDescriptor(descriptor) : nil
        // Indexed from the same open file that lookups read, not from the path a second time.
        guard let file, let data = try? FileHandle(fileDescriptor: file.raw, closeOnDealloc: false).readToEnd() ?? Data() else {
            throw RecognitionError(kind: .dictionary, function: "Lexicon", message: "cannot read the pronunciation dictionary \(url.path)")
        }
        try self.init(indexing: [UInt8](data), file: file, source: url)
    }

    /// A dictionary's text as bytes (`source` only names it in errors).
    package convenience init(bytes: [UInt8], source: URL) throws(RecognitionError) {
        try self.init(indexing: bytes, file: nil, source: source)
    }

    private init(indexing bytes: [UInt8], file: FileDescriptor?, source: URL) throws(RecognitionError) {
        guard bytes.count < Int(Int32.max) else {
            throw RecognitionError(kind: .dictionary, function: "Lexicon", message: "\(source.path) is too large for a pronunciation dictionary")
        }
        self.source = source
        self.file = file
        self.bytes = file == nil ? bytes : nil
        var lineStarts: [Int32] = []
        Self.forEachLine(bytes) { lineStarts.append(Int32($0)) }
        // At most two thirds full, so a probe sequence stays short.
        var capacity = 1024
        while capacity * 2 < lineStarts.count * 3 { capacity *= 2 }
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
        var slot = key.withUnsafeBufferPointer { Self.hash($0[...]) } & (slots.count - 1)
        while slots[slot] != 0 {
            let start = Int(slots[slot] - 1)
            line(at: start).withUnsafeBufferPointer { line in
                if line[Self.baseWord(in: line, lineStart: 0)].elementsEqual(key), let entry = Self.entry(in: line, lineStart: 0) {
                    found.append((start, entry))
                }
            }
            slot = (slot + 1) & (slots.count - 1)
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

    /// The line that starts at byte `start`, without its newline; empty when it cannot be read.
    private func line(at start: Int) -> [UInt8] {
        guard let file else {
            guard let bytes else { return [] }
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            return Array(bytes[start..<end])
        }
        // cmudict's lines are under 100 bytes; a longer one is read on in larger pieces.
        var line: [UInt8] = []
        var chunk = 128
        while line.count < 1 << 16 {
            var piece = [UInt8](repeating: 0, count: chunk)
            let count = piece.withUnsafeMutableBytes { pread(file.raw, $0.baseAddress, chunk, off_t(start + line.count)) }
            guard count > 0 else { return line }
            if let newline = piece[..<count].firstIndex(of: 0x0A) { return line + piece[..<newline] }
            line += piece[..<count]
            chunk *= 2
        }
        return line
    }

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
