/// The ignore decision as a Sendable value the scanner can call from any thread.
struct IgnoreBox: Sendable {
    var rules: IgnoreRules
    var excluded: [String]

    /// What ignores `path`, if anything (`syncctl explain`).
    func match(_ path: String, isDirectory: Bool) -> IgnoreRules.Match? {
        for e in excluded where path == e || path.hasPrefix(e + "/") {
            return IgnoreRules.Match(rule: e, source: .daemon, matched: e)
        }
        return rules.match(path, isDirectory: isDirectory)
    }

    func skips(_ path: String, isDirectory: Bool) -> Bool {
        for e in excluded where path == e || path.hasPrefix(e + "/") { return true }
        return rules.isIgnored(path, isDirectory: isDirectory)
    }

    /// `skips` for a path whose parent directories are not skipped, as in a scan's walk
    /// (it does not enter a skipped directory): only the path itself is matched.
    func skipsItself(_ path: String, isDirectory: Bool) -> Bool {
        excluded.contains(path) || rules.matches(path, isDirectory: isDirectory)
    }
}
