/// A CMUdict-format pronunciation file: "word  P H O N E S" per line, `;;;` and `#` comments,
/// blank lines ignored. Alternative pronunciations are written as CMUdict does ("read(2)").
public enum PronunciationFile {
    public struct Entry: Equatable, Sendable {
        /// Lower case, as the decoder's dictionary spells words.
        public var word: String
        public var phones: [String]
        /// 1-based line in the file.
        public var line: Int
    }

    /// Every entry of `text`; a word without phones is an error naming its line.
    public static func parse(_ text: String, source: String) throws(RecognitionError) -> [Entry] {
        var entries: [Entry] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard let word = fields.first, !word.hasPrefix(";;;"), !word.hasPrefix("#") else { continue }
            guard fields.count > 1 else {
                throw RecognitionError(kind: .dictionary, function: "addPronunciations", message: "\(source):\(number + 1): '\(word)' has no phones")
            }
            entries.append(Entry(word: word.lowercased(), phones: fields.dropFirst().map(String.init), line: number + 1))
        }
        return entries
    }
}
