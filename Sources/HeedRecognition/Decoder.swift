import CPocketSphinx
import CPTMScorer
import Foundation

/// A failure inside PocketSphinx, with the C function that reported it.
public struct RecognitionError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable { case model, grammar, dictionary, decoding }
    public let kind: Kind
    public let function: String
    public let message: String

    public var description: String { message }
}

/// Where the acoustic model and pronunciation dictionary live, and decoder settings.
public struct DecoderConfiguration: Sendable, Equatable {
    /// Debian's pocketsphinx-en-us.
    public static let systemModelRoot = URL(fileURLWithPath: "/usr/share/pocketsphinx/model/en-us")

    public var acousticModel: URL
    /// The pronunciation dictionary (CMUdict format). The decoder is given only the words its
    /// grammars use, looked up here as they are needed (see `Lexicon`).
    public var dictionary: URL
    /// Extra pronunciation files in CMUdict format, loaded after `dictionary`.
    public var extraDictionaries: [URL] = []
    /// Where PocketSphinx's own log goes; nil discards it. It never goes to stdout.
    public var logFile: URL?
    /// Further PocketSphinx arguments, e.g. ["-beam": "1e-60"]. Applied last.
    public var arguments: [String: String] = [:]
    /// Score frames with Heed's interleaved Gaussian evaluation (Sources/CPTMScorer) instead of
    /// PocketSphinx's own: the same scores, computed several Gaussians at a time. False keeps
    /// PocketSphinx's, for comparison. Models that are not PTM always keep PocketSphinx's.
    public var interleavedGaussians = true

    public init(acousticModel: URL = systemModelRoot.appendingPathComponent("en-us"),
                dictionary: URL = systemModelRoot.appendingPathComponent("cmudict-en-us.dict")) {
        self.acousticModel = acousticModel
        self.dictionary = dictionary
    }

    /// Settings chosen for short command grammars.
    var defaultArguments: [String: String] {
        [
            // Our own endpointer decides what is speech; the decoder's silence removal would make
            // word times depend on the input in odd ways.
            "-remove_silence": "no",
            // Silence may sit between words and around the phrase.
            "-fsgusefiller": "yes",
            // N-best lists (for confidence) come from the lattice best-path search builds.
            "-bestpath": "yes",
        ]
    }
}

/// One recognized word with its frame span (100 frames per second).
public struct WordSegment: Equatable, Sendable {
    public var word: String
    public var startFrame: Int
    public var endFrame: Int
    /// How well the acoustic model fits the word's frames (decoder log units; higher is better).
    public var acousticScore: Int32 = 0
    /// Silence and noise words (<sil>, [NOISE], <s>, ...) that are not part of the transcript.
    public var isFiller: Bool
}

/// One entry of an N-best list: a word sequence and its path score (decoder log units).
public struct Alternative: Equatable, Sendable {
    public var words: [String]
    public var score: Int32
}

/// What the decoder heard in one utterance.
public struct Hypothesis: Equatable, Sendable {
    public var words: [WordSegment]
    /// Path score, in the decoder's log base.
    public var score: Int32
    /// The N-best list from the lattice, best first (the best path itself included); empty
    /// when `Decoder.endUtterance` was asked for none.
    public var alternatives: [Alternative]
    public var frameCount: Int
    /// False when no path reached the grammar's final state and `words` is the best path that
    /// was still alive at the last frame (PocketSphinx's "Final result does not match the
    /// grammar"): what the decoder heard, but not a whole sentence of the grammar.
    public var reachedFinalState = true

    /// What Heed's scorer took off each frame's senone scores (empty when it is not installed).
    /// PocketSphinx scores only the senones a search's active HMMs need, relative to the best of
    /// them, so the same word on the same frames scores differently in a small grammar and a
    /// large one; with these subtracted, the scores are on the model's own scale.
    public var frameScoreOffsets: [Int32] = []

    /// The acoustic fit of the whole path, fillers included, without the grammar's weights.
    public var acousticScore: Int64 {
        words.reduce(0) { $0 + Int64($1.acousticScore) } - frameScoreOffsets.reduce(0) { $0 + Int64($1) }
    }

    /// The acoustic fit of the frames in `frames`: each segment's score in proportion to how
    /// many of its frames fall inside, so two paths through the same audio compare frame for frame.
    public func acousticScore(frames: ClosedRange<Int>) -> Double {
        let path = words.reduce(0.0) { total, segment in
            let overlap = min(segment.endFrame, frames.upperBound) - max(segment.startFrame, frames.lowerBound) + 1
            guard overlap > 0 else { return total }
            return total + Double(segment.acousticScore) * Double(overlap) / Double(segment.endFrame - segment.startFrame + 1)
        }
        let lower = max(frames.lowerBound, 0), upper = min(frames.upperBound + 1, frameScoreOffsets.count)
        let offsets = lower < upper ? frameScoreOffsets[lower..<upper].reduce(0.0) { $0 + Double($1) } : 0
        return path - offsets
    }

    public var spokenWords: [WordSegment] { words.filter { !$0.isFiller } }
    public var text: String { spokenWords.map(\.word).joined(separator: " ") }
}

/// A PocketSphinx decoder. Not thread-safe: own one per thread of decoding.
public final class Decoder {
    private let decoder: OpaquePointer
    /// The sample rate the acoustic model was trained on; input must be converted to it.
    public let sampleRate: Int
    public let frameRate: Int
    private var inUtterance = false
    private var dither: UInt32 = 1
    private let lexicon: Lexicon
    /// Whether frames are scored by Heed's interleaved Gaussian evaluation (see
    /// `DecoderConfiguration.interleavedGaussians`).
    public let usesInterleavedGaussians: Bool
    /// Why Heed's scorer was asked for and is not in use (nil when it is, or was not asked for):
    /// a different PocketSphinx or model. Decoding still works, but tell the user.
    public let scorerWarning: String?
    /// Base words already looked up in the lexicon (found or not), so each is looked up once.
    private var lexiconLookups: Set<String> = []

    public init(configuration: DecoderConfiguration = .init()) throws(RecognitionError) {
        Self.routeLog(to: configuration.logFile)
        for (name, url) in [("acoustic model", configuration.acousticModel), ("dictionary", configuration.dictionary)]
            where !FileManager.default.fileExists(atPath: url.path) {
            throw RecognitionError(kind: .model, function: "init",
                                   message: "\(name) not found at \(url.path); install pocketsphinx-en-us (`make deps`)")
        }
        // No -dict: PocketSphinx would load all of cmudict (22 MB, 0.1 s); words come from the
        // lexicon one by one as grammars name them.
        lexicon = try Lexicon.shared(configuration.dictionary)
        var arguments = ["-hmm": configuration.acousticModel.path]
        arguments.merge(configuration.defaultArguments) { $1 }
        arguments.merge(configuration.arguments) { $1 }
        let argv = arguments.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
        let config = Self.withCArguments(argv) { argc, argv in cmd_ln_parse_r(nil, ps_args(), argc, argv, 1) }
        guard let config else {
            throw RecognitionError(kind: .model, function: "cmd_ln_parse_r", message: "invalid decoder arguments: \(argv.joined(separator: " "))")
        }
        defer { cmd_ln_free_r(config) }
        guard let decoder = ps_init(config) else {
            throw RecognitionError(kind: .model, function: "ps_init",
                                   message: "cannot load the acoustic model from \(configuration.acousticModel.path)")
        }
        self.decoder = decoder
        usesInterleavedGaussians = configuration.interleavedGaussians && heed_ptm_scorer_install(decoder) == 1
        scorerWarning = configuration.interleavedGaussians && !usesInterleavedGaussians
            ? "Heed's Gaussian scorer did not install: this model or PocketSphinx is not the PTM layout it was written for (Debian's libpocketsphinx 0.8+5prealpha). Decoding uses PocketSphinx's own scorer: slower, without noise adaptation or speaker profiles, and verification compares fits on two scales."
            : nil
        let active = ps_get_config(decoder)
        sampleRate = Int(cmd_ln_float_r(active, "-samprate"))
        frameRate = Int(cmd_ln_int_r(active, "-frate"))
        configuredMaxActiveHMMs = cmd_ln_int_r(active, "-maxhmmpf")
        for url in configuration.extraDictionaries { try addPronunciations(from: url) }
    }

    /// Adds every entry of a CMUdict-format file ("word  P H O N E S" per line, ";;;" comments)
    /// to the dictionary. (PocketSphinx's own ps_load_dict would replace the whole dictionary.)
    public func addPronunciations(from url: URL) throws(RecognitionError) {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw RecognitionError(kind: .dictionary, function: "addPronunciations", message: "cannot read pronunciations from \(url.path)")
        }
        for entry in try PronunciationFile.parse(text, source: url.path) {
            guard addWord(entry.word, phones: entry.phones.joined(separator: " ")) else {
                let unknown = entry.phones.first { addWordProbe(phone: $0) == false } ?? entry.phones.joined(separator: " ")
                throw RecognitionError(kind: .dictionary, function: "ps_add_word",
                                       message: "\(url.path):\(entry.line): '\(entry.word)' uses a phone the acoustic model does not have: '\(unknown)'"
                                           + (unknown == unknown.uppercased() ? "" : " (phones are upper case, like \(unknown.uppercased()))"))
            }
        }
    }

    /// The speech phones of the English models (CMUdict's set, silence and fillers left out).
    public static let speechPhones = ["AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH",
                                      "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH",
                                      "UH", "UW", "V", "W", "Y", "Z", "ZH"]

    /// Adds one word per speech phone the model has ("~aa" is AA for the prefix "~"), so a loop
    /// of them can match any speech; returns the words added.
    public func addPhoneWords(prefix: String) -> [String] {
        Self.speechPhones.compactMap { phone in
            let word = prefix + phone.lowercased()
            return addWord(word, phones: phone) ? word : nil
        }
    }

    /// Whether the model knows a single phone.
    private func addWordProbe(phone: String) -> Bool {
        addWord("heed-phone-probe-" + phone.lowercased(), phones: phone)
    }

    deinit { ps_free(decoder) }

    // MARK: Vocabulary

    /// The pronunciation of `word` ("read(2)" for its second), or nil when the dictionary lacks
    /// it. A word the decoder has not been given yet is taken from the lexicon with its
    /// alternates, so every word of the dictionary behaves as if it had been loaded at start.
    public func pronunciation(of word: String) -> String? {
        if let phones = loadedPronunciation(of: word) { return phones }
        let base = Self.dictionaryEntry(word)
        guard lexiconLookups.insert(base).inserted else { return nil }
        for entry in lexicon.entries(for: base) {
            // A line whose phones the model lacks is skipped, as PocketSphinx's loader skips it.
            _ = ps_add_word(decoder, entry.name, entry.phones, 0)
        }
        return loadedPronunciation(of: word)
    }

    /// Every pronunciation of `word`: its own, then its alternates ("word(2)", "word(3)", ...).
    public func pronunciations(of word: String) -> [String] {
        let base = Self.dictionaryEntry(word)
        guard let first = pronunciation(of: base) else { return [] }
        var all = [first]
        for alternate in 2...32 {
            guard let phones = pronunciation(of: "\(base)(\(alternate))") else { break }
            all.append(phones)
        }
        return all
    }

    /// `words` as a CMUdict-format dictionary, every pronunciation the decoder has for each
    /// ("read  R EH D", "read(2)  R IY D"), for PocketSphinx's -dict.
    public func dictionaryText(for words: some Sequence<String>) -> String {
        var lines: [String] = []
        for word in words {
            for (index, phones) in pronunciations(of: word).enumerated() {
                lines.append("\(index == 0 ? word : "\(word)(\(index + 1))") \(phones)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func loadedPronunciation(of word: String) -> String? {
        guard let phones = ps_lookup_word(decoder, word) else { return nil }
        defer { free(phones) }
        return String(cString: phones)
    }

    /// The word a decoded word stands for: "read(2)" is an alternate pronunciation of "read".
    public static func baseWord(_ word: String) -> String {
        dictionaryEntry(word)
    }

    /// The dictionary word whose alternate `word` is ("read" for "read(2)", "start~ac" for
    /// "start~ac(2)"): alternates are numbered per dictionary word, as PocketSphinx links them.
    static func dictionaryEntry(_ word: String) -> String {
        guard let paren = word.firstIndex(of: "("), word.hasSuffix(")") else { return word }
        return String(word[..<paren])
    }

    /// Adds a word with a phone string ("S T AA P"); a word the dictionary already has with other
    /// phones gets this as an alternate pronunciation ("word(2)"). Returns false when a phone is
    /// unknown to the model.
    @discardableResult
    public func addWord(_ word: String, phones: String) -> Bool {
        let phones = phones.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let known = pronunciations(of: word)
        if known.contains(phones) { return true }
        guard known.count < 32 else { return false }
        let name = known.isEmpty ? word : "\(Self.dictionaryEntry(word))(\(known.count + 1))"
        return ps_add_word(decoder, name, phones, 0) >= 0
    }

    // MARK: Grammars

    /// Adds (or replaces) a named search over `grammar`. Select it with `select(_:)`.
    public func add(_ grammar: Grammar, named name: String) throws(RecognitionError) {
        let missing = grammar.words.filter { pronunciation(of: $0) == nil }.sorted()
        guard missing.isEmpty else {
            throw RecognitionError(kind: .dictionary, function: "ps_set_fsg",
                                   message: "not in the pronunciation dictionary: \(missing.joined(separator: ", "))")
        }
        let languageWeight = Float(cmd_ln_float_r(ps_get_config(decoder), "-lw"))
        let logmath = ps_get_logmath(decoder)
        guard let fsg = fsg_model_init(name, logmath, languageWeight, Int32(grammar.stateCount)) else {
            throw RecognitionError(kind: .grammar, function: "fsg_model_init", message: "cannot allocate a grammar")
        }
        defer { fsg_model_free(fsg) }  // the search keeps its own reference
        fsg.pointee.start_state = Int32(grammar.start)
        fsg.pointee.final_state = Int32(grammar.final)
        for transition in grammar.transitions {
            let logProbability = Int32(Float(logmath_log(logmath, transition.probability)) * languageWeight)
            if let word = transition.word {
                fsg_model_trans_add(fsg, Int32(transition.from), Int32(transition.to), logProbability, fsg_model_word_add(fsg, word))
            } else {
                fsg_model_null_trans_add(fsg, Int32(transition.from), Int32(transition.to), logProbability)
            }
        }
        // The FSG search follows one empty transition per word end, so a run of them (two
        // optional parts in a row, "(the) (big) lights") would be a path it cannot take. PocketSphinx's
        // own grammar readers close them over; a graph built in memory has to ask for it.
        glist_free(fsg_model_null_trans_closure(fsg, nil))
        // Replacing a search frees the old one; if it was the selected search, the decoder would
        // keep pointing at freed memory until another is selected, so select the new one at once.
        guard ps_set_fsg(decoder, name, fsg) == 0 else {
            throw RecognitionError(kind: .grammar, function: "ps_set_fsg", message: "the decoder rejected grammar '\(name)'")
        }
        if selectedSearch == name { try select(name) }
    }

    /// Adds a named search over a hand-written JSGF grammar file's first public rule
    /// (PocketSphinx expands its rules; prefer `Grammar` for anything generated).
    public func addJSGF(file: URL, named name: String) throws(RecognitionError) {
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw RecognitionError(kind: .grammar, function: "jsgf_parse_file", message: "cannot read grammar \(file.path)")
        }
        // As ps_set_jsgf_file does it: the grammar's own first public rule, not an imported one.
        guard let jsgf = jsgf_parse_file(file.path, nil) else {
            throw RecognitionError(kind: .grammar, function: "jsgf_parse_file", message: "invalid JSGF grammar \(file.path) (a syntax error)")
        }
        defer { jsgf_grammar_free(jsgf) }
        guard let rule = jsgf_get_public_rule(jsgf) else {
            throw RecognitionError(kind: .grammar, function: "jsgf_get_public_rule", message: "invalid JSGF grammar \(file.path) (no public rule)")
        }
        let languageWeight = Float(cmd_ln_float_r(ps_get_config(decoder), "-lw"))
        guard let fsg = jsgf_build_fsg(jsgf, rule, ps_get_logmath(decoder), languageWeight) else {
            throw RecognitionError(kind: .grammar, function: "jsgf_build_fsg", message: "invalid JSGF grammar \(file.path) (its rules cannot be expanded)")
        }
        defer { fsg_model_free(fsg) }
        // The grammar's words go to the decoder before the search is built from them.
        let words = (0..<Int(fsg.pointee.n_word)).compactMap { fsg.pointee.vocab[$0].map { String(cString: $0) } }
        let missing = Set(words.filter { !Self.isFiller($0) && pronunciation(of: $0) == nil }).sorted()
        guard missing.isEmpty else {
            throw RecognitionError(kind: .dictionary, function: "jsgf_build_fsg",
                                   message: "\(file.path): not in the pronunciation dictionary: \(missing.joined(separator: ", "))")
        }
        guard ps_set_fsg(decoder, name, fsg) == 0 else {
            throw RecognitionError(kind: .grammar, function: "ps_set_fsg", message: "the decoder rejected grammar \(file.path)")
        }
        if selectedSearch == name { try select(name) }
    }

    /// The search `select` chose last. Kept here because PocketSphinx 5prealpha's
    /// ps_get_search leaks a hash iterator on every call.
    private(set) var selectedSearch: String?

    /// The most HMMs a search keeps active in a frame (PocketSphinx's -maxhmmpf: above it, the
    /// beams narrow frame by frame until the count falls); nil: the configured value. The FSG
    /// search reads it from the shared configuration every frame, so it applies from the next
    /// frame decoded, whatever the search. Zero or less counts as nil.
    public var maxActiveHMMs: Int? {
        didSet {
            let cap = maxActiveHMMs.flatMap { $0 > 0 ? $0 : nil } ?? configuredMaxActiveHMMs
            cmd_ln_set_int_r(ps_get_config(decoder), "-maxhmmpf", cap)
        }
    }
    private let configuredMaxActiveHMMs: Int
    /// The cap the FSG search reads now.
    var effectiveMaxActiveHMMs: Int { cmd_ln_int_r(ps_get_config(decoder), "-maxhmmpf") }

    /// Drops a search added earlier and frees it; nothing is selected afterwards if it was
    /// selected. Dropping searches before building their replacements lets the new ones reuse
    /// the old ones' memory (built first, they would sit beside it: about 4 MB more).
    public func remove(search name: String) {
        guard ps_unset_search(decoder, name) == 0 else { return }
        if selectedSearch == name { selectedSearch = nil }
    }

    /// Makes a search added earlier the one the next utterance is decoded with.
    public func select(_ name: String) throws(RecognitionError) {
        guard ps_set_search(decoder, name) == 0 else {
            throw RecognitionError(kind: .grammar, function: "ps_set_search", message: "no search named '\(name)'")
        }
        selectedSearch = name
    }

    // MARK: Noise adaptation

    /// The trained Gaussians (means, variances and normalizing terms), copied before the first
    /// adaptation so every later one starts from them and `restoreAcousticModel` can put them back exactly.
    private var trainedGaussians: [Float]?
    /// The shifts of the speaker the model is moved to (`apply(_:)`), and the trained model's
    /// fingerprint from before they moved it.
    var speakerShifts: [Float]?
    var trainedFingerprint: String?
    /// Whether the model's Gaussians are adapted to some audio's noise now.
    public private(set) var isAdaptedToNoise = false

    /// Adapts the acoustic model's Gaussians to the noise in `samples`, which is about to be decoded.
    /// Returns false when the model is left as trained: the audio does not call for it (too
    /// short, speech far above the noise) or the model is not one Heed's scorer handles.
    @discardableResult
    public func adaptAcousticModel(toNoiseIn samples: ArraySlice<Int16>, _ settings: NoiseAdaptation) -> Bool {
        guard usesInterleavedGaussians, let trained = trainedGaussiansCopy() else { return false }
        var cSettings = settings.cSettings
        let adapted = trained.withUnsafeBufferPointer { gaussians in
            samples.withUnsafeBufferPointer { audio in
                heed_ptm_adapt_to_noise(decoder, gaussians.baseAddress, audio.baseAddress, audio.count, &cSettings)
            }
        }
        isAdaptedToNoise = adapted == 1
        return isAdaptedToNoise
    }

    /// Puts the trained Gaussians back after `adaptAcousticModel`.
    public func restoreAcousticModel() {
        guard isAdaptedToNoise, let trainedGaussians else { return }
        trainedGaussians.withUnsafeBufferPointer { heed_ptm_set_parameters(decoder, $0.baseAddress) }
        isAdaptedToNoise = false
    }

    /// How much the `quietest` share of `samples`' frames (0.1: the quietest tenth) changes from
    /// one 10 ms frame to the next (mean absolute change of the log mel spectrum per band): over
    /// the quietest tenth of an utterance, 0.2-0.5 in steady noise, 0.6 and more in background
    /// talk. nil for less than 0.1 s of audio, or when no two neighbouring frames are among that share.
    public func noiseVariability(of samples: ArraySlice<Int16>, quietest: Double) -> Double? {
        let variability = samples.withUnsafeBufferPointer { heed_noise_variability(decoder, $0.baseAddress, $0.count, quietest) }
        return variability < 0 ? nil : variability
    }

    /// Forgets the trained copy, so the next adaptation starts from the model as it is now (after
    /// a speaker's shifts, see `apply(_:)`).
    func resetTrainedGaussians() {
        trainedGaussians = nil
    }

    /// The PocketSphinx decoder, for Heed's own C (Sources/CPTMScorer); it never leaves this module.
    var pointer: OpaquePointer { decoder }

    private func trainedGaussiansCopy() -> [Float]? {
        if let trainedGaussians { return trainedGaussians }
        let copy = parameters()
        guard !copy.isEmpty else { return nil }
        trainedGaussians = copy
        return copy
    }

    /// The Gaussians' parameters as they are now (empty when Heed's scorer is not installed).
    func parameters() -> [Float] {
        let count = heed_ptm_parameter_count(decoder)
        guard count > 0 else { return [] }
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            heed_ptm_copy_parameters(decoder, buffer.baseAddress)
            initialized = count
        }
    }

    // MARK: Decoding

    /// What an utterance does with its search of the model's codebooks (most of the cost of a
    /// decode), when the same samples are decoded twice against two searches: the first keeps it,
    /// the second reuses it. Every score is the same as with `.own`. Without Heed's scorer, all are `.own`.
    public enum CodebookSearch: Sendable {
        case own
        /// Kept for the next utterance, which decodes the same samples with the same model.
        case keptForNext
        /// The previous utterance's, kept with `.keptForNext`: the caller feeds the same samples.
        case reusedFromLast
    }

    /// Starts an utterance.
    public func startUtterance(codebooks: CodebookSearch = .own) throws(RecognitionError) {
        precondition(!inUtterance, "startUtterance called twice")
        // A new stream per utterance numbers its frames from zero, so word times are relative to
        // the audio we fed for this utterance.
        ps_start_stream(decoder)
        heed_ptm_begin_score_offsets(decoder)
        switch codebooks {
        case .own: heed_ptm_forget_codebooks(decoder)
        case .keptForNext: heed_ptm_keep_codebooks(decoder)
        case .reusedFromLast: heed_ptm_reuse_codebooks(decoder)
        }
        dither = 1
        guard ps_start_utt(decoder) == 0 else {
            throw RecognitionError(kind: .decoding, function: "ps_start_utt", message: "cannot start an utterance (no grammar active?)")
        }
        inUtterance = true
    }

    /// Feeds 16-bit samples at `sampleRate`. With `wholeUtterance`, `samples` is the entire
    /// utterance, and cepstral mean normalization uses its own mean instead of a running estimate.
    public func process(_ samples: UnsafeBufferPointer<Int16>, wholeUtterance: Bool = false) throws(RecognitionError) {
        precondition(inUtterance, "process called outside an utterance")
        guard samples.count > 0 else { return }
        // Digital silence (exact zeros, common in synthesized or gated audio) has no defined log
        // energy. PocketSphinx's own -dither draws from one generator for the decoder's lifetime,
        // which would make a result depend on what was decoded before; this dither restarts with
        // every utterance.
        var dithered = [Int16](samples)
        for index in dithered.indices where dithered[index] < .max {
            dither = dither &* 1_103_515_245 &+ 12_345
            if (dither >> 16) & 3 == 0 { dithered[index] += 1 }  // +1 on a quarter of samples, as sphinxbase's fe does
        }
        let status = dithered.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, wholeUtterance ? 1 : 0) }
        guard status >= 0 else {
            throw RecognitionError(kind: .decoding, function: "ps_process_raw", message: "the decoder failed on the audio")
        }
    }

    public func process(_ samples: [Int16], wholeUtterance: Bool = false) throws(RecognitionError) {
        try samples.withUnsafeBufferPointer { (buffer) throws(RecognitionError) in try process(buffer, wholeUtterance: wholeUtterance) }
    }

    /// The best hypothesis so far in the current utterance.
    public func partialText() -> String? {
        var score: Int32 = 0
        guard let hyp = ps_get_hyp(decoder, &score) else { return nil }
        return String(cString: hyp)
    }

    /// Ends the utterance. The N-best list is made only when `alternatives` wants one for the
    /// hypothesis; otherwise it is left empty. The list needs the word lattice, whose building is
    /// the costly part: PocketSphinx links its nodes by linear search, so on long speech through
    /// garbage loops it can take more time than the decoding itself, and on a free phone loop's
    /// lattice minutes.
    public func endUtterance(alternatives wanted: (Hypothesis) -> Bool = { _ in true }) throws(RecognitionError) -> Hypothesis {
        precondition(inUtterance, "endUtterance without startUtterance")
        inUtterance = false
        // Before the utterance ends, the search backtraces from the best word end of the last
        // frame, wherever in the grammar it is; afterwards only from the final state. Taken now
        // (a backtrace, no lattice), it is the fallback when no path reached the final state.
        let partial = segments()
        let status = ps_end_utt(decoder)
        // ps_end_utt scores the last frames, so the offsets are complete only now.
        let frames = Int(ps_get_n_frames(decoder))
        let offsets = [Int32](unsafeUninitializedCapacity: frames) { buffer, initialized in
            initialized = heed_ptm_end_score_offsets(decoder, buffer.baseAddress, frames)
        }
        guard status >= 0 else {
            throw RecognitionError(kind: .decoding, function: "ps_end_utt", message: "the decoder failed to finish the utterance")
        }
        var score: Int32 = 0
        guard ps_get_hyp(decoder, &score) != nil else {
            var failed = Hypothesis(words: partial, score: 0, alternatives: [], frameCount: frames)
            failed.reachedFinalState = false
            failed.frameScoreOffsets = offsets
            return failed
        }
        var hypothesis = Hypothesis(words: segments(), score: score, alternatives: [], frameCount: frames)
        hypothesis.frameScoreOffsets = offsets
        guard wanted(hypothesis) else { return hypothesis }
        hypothesis.alternatives = nBest(limit: Self.alternativesKept)
        // The A* search over the lattice can miss the path the decoder chose (when its best-path
        // search fell back to the Viterbi backtrace); the list would then describe other words
        // only. The chosen path goes first, level with the list's best (the scores of the two
        // searches are not on one scale).
        let best = hypothesis.spokenWords.map { Self.baseWord($0.word) }
        if !best.isEmpty, !hypothesis.alternatives.contains(where: { $0.words.map(Self.baseWord) == best }) {
            hypothesis.alternatives.insert(Alternative(words: best, score: hypothesis.alternatives.first?.score ?? score), at: 0)
        }
        return hypothesis
    }

    /// The words of the current best path with their frames and acoustic scores.
    private func segments() -> [WordSegment] {
        var words: [WordSegment] = []
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            var start: Int32 = 0, end: Int32 = 0, acoustic: Int32 = 0, language: Int32 = 0, backoff: Int32 = 0
            ps_seg_frames(current, &start, &end)
            _ = ps_seg_prob(current, &acoustic, &language, &backoff)
            let word = String(cString: ps_seg_word(current))
            words.append(WordSegment(word: word, startFrame: Int(start), endFrame: Int(end), acousticScore: acoustic, isFiller: Self.isFiller(word)))
            segment = ps_seg_next(current)  // frees the iterator at the end
        }
        return words
    }

    /// How many N-best hypotheses an utterance keeps (enough to see the nearest competitors).
    static let alternativesKept = 10

    /// The best distinct word sequences in the utterance's lattice, best first.
    private func nBest(limit: Int) -> [Alternative] {
        var alternatives: [Alternative] = []
        var iterator = ps_nbest(decoder)
        while let current = iterator, alternatives.count < limit {
            var score: Int32 = 0
            if let text = ps_nbest_hyp(current, &score) {
                let words = String(cString: text).split(separator: " ").map(String.init).filter { !Self.isFiller($0) }
                alternatives.append(Alternative(words: words, score: score))
            }
            iterator = ps_nbest_next(current)  // frees the iterator when the list ends
        }
        if let iterator { ps_nbest_free(iterator) }
        return alternatives
    }

    /// Silence, noise and empty-transition markers, which are not part of what was said.
    static func isFiller(_ word: String) -> Bool {
        word.hasPrefix("<") || word.hasPrefix("[") || word.hasPrefix("+") || word == "(NULL)"
    }

    // MARK: C plumbing

    /// PocketSphinx logs through one process-wide stream; it never shares our stdout.
    private static func routeLog(to file: URL?) {
        if let file {
            _ = err_set_logfile(file.path)
        } else {
            err_set_logfp(nil)
        }
    }

    private static func withCArguments<R>(_ arguments: [String], _ body: (Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeMutableBufferPointer { body(Int32(arguments.count), $0.baseAddress!) }
    }
}
