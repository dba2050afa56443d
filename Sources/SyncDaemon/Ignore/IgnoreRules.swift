/// gitignore-style rules: `*`, `**`, `?`, `[...]`, leading `/` (anchored),
/// trailing `/` (directories only), `!` negation, `#` comments. The last
/// matching rule wins; a path inside an ignored directory is ignored.
public struct IgnoreRules: Sendable, Equatable {
    /// Where a rule comes from (`syncctl explain` names it).
    public enum Source: Sendable, Equatable {
        /// The daemon's own (editor temp files, our staging files).
        case builtIn
        /// The folder's `ignore` key in syncd's config.
        case config
        /// A line of the folder's `.syncignore` (1-based).
        case file(line: Int)
        /// The daemon's own files inside the folder (its state directory).
        case daemon
    }

    struct Rule: Sendable, Equatable {
        var pattern: [UInt8]
        var negated: Bool
        var directoryOnly: Bool
        /// Contains a `/`: matched against the whole path, else against the name.
        var anchored: Bool
        /// The line as written, and where.
        var text: String = ""
        var source: Source = .config
    }

    /// The rule that ignores a path: its text, where it is written, and the path it matched
    /// (the path itself, or a directory above it).
    public struct Match: Sendable, Equatable {
        public var rule: String
        public var source: Source
        public var matched: String
    }

    private(set) var rules: [Rule] = []

    /// The per-folder rules file, in the folder root, synced like any file.
    public static let fileName = ".syncignore"

    /// Editor temp and lock files (vim, emacs, LibreOffice, GIO's atomic-save
    /// temp), and our own staging files.
    public static let defaults = [
        ".*.swp", ".*.swx", "*~", "4913", ".#*", ".~lock.*#", ".goutputstream-*", ".syncd-tmp-*",
    ]

    public init(patterns: [String], source: Source = .config) {
        for line in patterns { add(line, source: source) }
    }

    /// The daemon's defaults, then the config's patterns, then the lines of `.syncignore`.
    public init(config: [String], file: [String]) {
        for line in Self.defaults { add(line, source: .builtIn) }
        for line in config { add(line, source: .config) }
        for (i, line) in file.enumerated() { add(line, source: .file(line: i + 1)) }
    }

    public mutating func add(_ line: String, source: Source = .config) {
        var text = Substring(line)
        while text.last == " " && !text.hasSuffix("\\ ") { text = text.dropLast() }
        guard !text.isEmpty, !text.hasPrefix("#") else { return }
        var negated = false
        if text.hasPrefix("!") {
            negated = true
            text = text.dropFirst()
        } else if text.hasPrefix("\\!") || text.hasPrefix("\\#") {
            text = text.dropFirst()
        }
        var directoryOnly = false
        if text.hasSuffix("/") {
            directoryOnly = true
            text = text.dropLast()
        }
        var anchored = text.contains("/")
        if text.hasPrefix("/") { text = text.dropFirst() }
        if text.hasPrefix("**/") {
            // `**/x` matches x at any depth: the same as an unanchored name rule when x has no `/`.
            let rest = text.dropFirst(3)
            if !rest.contains("/") {
                text = rest
                anchored = false
            }
        }
        guard !text.isEmpty else { return }
        rules.append(
            Rule(
                pattern: Array(text.utf8), negated: negated, directoryOnly: directoryOnly, anchored: anchored, text: line,
                source: source))
    }

    /// Whether `path` (relative, `/`-separated) itself matches, ignoring its parents.
    public func matches(_ path: String, isDirectory: Bool) -> Bool {
        decidingRule(path, isDirectory: isDirectory) != nil
    }

    /// The last rule that ignores `path` itself, when no later `!` rule takes it back.
    /// Reads the path's bytes in place (a scan asks this for every entry it walks).
    private func decidingRule(_ path: String, isDirectory: Bool) -> Rule? {
        var path = path
        return path.withUTF8 { full in decidingRule(utf8: full, isDirectory: isDirectory).map { rules[$0] } }
    }

    /// `decidingRule` over a path's UTF-8 bytes; the rule's index.
    private func decidingRule(utf8 full: UnsafeBufferPointer<UInt8>, isDirectory: Bool) -> Int? {
        let name = full.lastIndex(of: UInt8(ascii: "/")).map { UnsafeBufferPointer(rebasing: full[($0 + 1)...]) } ?? full
        // By index: the rules are borrowed, not copied, one by one.
        var decided: Int?
        for i in rules.indices where rules[i].negated == (decided != nil) {
            if rules[i].directoryOnly && !isDirectory { continue }
            let anchored = rules[i].anchored
            if rules[i].pattern.withUnsafeBufferPointer({ Glob.match($0, anchored ? full : name) }) {
                decided = rules[i].negated ? nil : i
            }
        }
        return decided
    }

    /// Which rule ignores `path` (or a directory above it); nil when it is not ignored.
    public func match(_ path: String, isDirectory: Bool) -> Match? {
        var prefix = ""
        let parts = path.split(separator: "/")
        for (i, part) in parts.enumerated() {
            prefix = prefix.isEmpty ? String(part) : prefix + "/" + part
            let last = i == parts.count - 1
            if let rule = decidingRule(prefix, isDirectory: last ? isDirectory : true) {
                return Match(rule: rule.text, source: rule.source, matched: prefix)
            }
        }
        return nil
    }

    /// Whether `path` or any directory above it is ignored.
    /// Each directory above it is matched as the path's own leading bytes (no copies: the
    /// watcher asks this for every event).
    public func isIgnored(_ path: String, isDirectory: Bool) -> Bool {
        var path = path
        return path.withUTF8 { full in
            let slash = UInt8(ascii: "/")
            var start = 0
            while start < full.count && full[start] == slash { start += 1 }
            var end = start
            while end < full.count {
                var next = end
                while next < full.count && full[next] != slash { next += 1 }
                if next > end {
                    let prefix = UnsafeBufferPointer(rebasing: full[start..<next])
                    if decidingRule(utf8: prefix, isDirectory: next < full.count ? true : isDirectory) != nil { return true }
                }
                end = next + 1
            }
            return false
        }
    }
}
