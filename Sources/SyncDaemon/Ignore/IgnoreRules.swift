/// gitignore-style rules: `*`, `**`, `?`, `[...]`, leading `/` (anchored),
/// trailing `/` (directories only), `!` negation, `#` comments. The last
/// matching rule wins; a path inside an ignored directory is ignored.
public struct IgnoreRules: Sendable, Equatable {
    struct Rule: Sendable, Equatable {
        var pattern: [UInt8]
        var negated: Bool
        var directoryOnly: Bool
        /// Contains a `/`: matched against the whole path, else against the name.
        var anchored: Bool
    }

    private(set) var rules: [Rule] = []

    /// The per-folder rules file, in the folder root, synced like any file.
    public static let fileName = ".syncignore"

    /// Editor temp and lock files (vim, emacs, LibreOffice, GIO's atomic-save
    /// temp), and our own staging files.
    public static let defaults = [
        ".*.swp", ".*.swx", "*~", "4913", ".#*", ".~lock.*#", ".goutputstream-*", ".syncd-tmp-*",
    ]

    public init(patterns: [String]) {
        for line in patterns { add(line) }
    }

    public mutating func add(_ line: String) {
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
        rules.append(Rule(pattern: Array(text.utf8), negated: negated, directoryOnly: directoryOnly, anchored: anchored))
    }

    /// Whether `path` (relative, `/`-separated) itself matches, ignoring its parents.
    public func matches(_ path: String, isDirectory: Bool) -> Bool {
        let full = Array(path.utf8)
        let name: [UInt8]
        if let slash = full.lastIndex(of: UInt8(ascii: "/")) { name = Array(full[(slash + 1)...]) } else { name = full }
        var ignored = false
        for rule in rules where rule.negated == ignored {
            if rule.directoryOnly && !isDirectory { continue }
            if Glob.match(rule.pattern, rule.anchored ? full : name) { ignored = !rule.negated }
        }
        return ignored
    }

    /// Whether `path` or any directory above it is ignored.
    public func isIgnored(_ path: String, isDirectory: Bool) -> Bool {
        var prefix = ""
        let parts = path.split(separator: "/")
        for (i, part) in parts.enumerated() {
            prefix = prefix.isEmpty ? String(part) : prefix + "/" + part
            let last = i == parts.count - 1
            if matches(prefix, isDirectory: last ? isDirectory : true) { return true }
        }
        return false
    }
}
