/// Common English words that compete with the commands in the grammar: speech that is not a
/// command finds a better path through a loop of these than through any command, and comes out
/// as not understood. Words that sound like a command are removed at grammar-build time.
enum GarbageWords {
    static let english: [String] = [
        "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "ask", "at",
        "away", "back", "be", "because", "been", "before", "being", "best", "big", "but", "by", "call",
        "can", "come", "could", "day", "did", "do", "does", "down", "each", "even", "every", "far", "few",
        "find", "first", "for", "from", "get", "give", "go", "good", "got", "great", "had", "has", "have",
        "he", "hear", "her", "here", "him", "his", "home", "how", "i", "if", "in", "into", "is", "it",
        "its", "just", "keep", "kind", "know", "last", "let", "like", "little", "long", "look", "made",
        "make", "man", "many", "may", "me", "might", "more", "most", "much", "must", "my", "name", "need",
        "never", "new", "next", "no", "not", "now", "of", "off", "old", "on", "one", "only", "open", "or",
        "other", "our", "out", "over", "own", "people", "place", "play", "please", "put", "radio", "read",
        "really", "right", "said", "same", "saw", "say", "see", "she", "should", "show", "side", "small",
        "so", "some", "something", "sound", "still", "such", "take", "tell", "than", "thank", "that",
        "the", "their", "them", "then", "there", "these", "they", "thing", "think", "this", "those",
        "three", "through", "time", "to", "today", "too", "try", "turn", "two", "under", "up", "us", "use",
        "very", "want", "was", "water", "way", "we", "weather", "well", "went", "were", "what", "when",
        "where", "which", "while", "who", "why", "will", "with", "window", "word", "work", "world",
        "would", "year", "yes", "you", "your", "morning", "evening", "music", "coffee", "mother", "father",
        "keys", "light", "lights", "kitchen", "number", "hello", "there"
    ]
}
