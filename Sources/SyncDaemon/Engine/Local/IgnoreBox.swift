/// The ignore decision as a Sendable value the scanner can call from any thread.
struct IgnoreBox: Sendable {
    var rules: IgnoreRules
    var excluded: [String]

    func skips(_ path: String, isDirectory: Bool) -> Bool {
        for e in excluded where path == e || path.hasPrefix(e + "/") { return true }
        return rules.isIgnored(path, isDirectory: isDirectory)
    }
}
