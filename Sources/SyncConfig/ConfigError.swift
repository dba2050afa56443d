/// A problem with a configuration file: which file, which key, and what is wrong.
///
/// `description` is one line, `<file>: <key>: <reason>`, or `<file>: <reason>` for
/// file-level problems (unreadable file, TOML syntax error) where `key` is empty.
public struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Path of the config file, as it was given.
    public var file: String
    /// Dotted key, e.g. `folder[1].settle` or `server.url`; empty for file-level problems.
    public var key: String
    /// What is wrong and what is expected.
    public var reason: String

    public init(file: String, key: String, reason: String) {
        self.file = file
        self.key = key
        self.reason = reason
    }

    public var description: String {
        let text = key.isEmpty ? "\(file): \(reason)" : "\(file): \(key): \(reason)"
        // Keep it one line whatever the reason (or a TOML message) contained.
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

/// Helpers shared by the readers: "did you mean" suggestions.
enum Suggest {
    /// The candidate closest to `word` if its edit distance is at most 2.
    static func closest(to word: String, in candidates: [String]) -> String? {
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let d = distance(word, candidate)
            if d <= 2, d < (best?.distance ?? Int.max) {
                best = (candidate, d)
            }
        }
        return best?.name
    }

    /// Levenshtein distance over Unicode characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// `expected one of a, b, c, got "x"`, plus a suggestion when one is close.
    static func oneOf(_ allowed: [String], got value: String) -> String {
        var reason = "expected one of \(allowed.joined(separator: ", ")), got \"\(value)\""
        if let near = closest(to: value, in: allowed) {
            reason += "; did you mean \"\(near)\"?"
        }
        return reason
    }
}
