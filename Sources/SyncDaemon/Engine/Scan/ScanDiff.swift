/// What a full scan journals: every difference between the tree on disk and the index.
/// New and changed paths (an unchanged stat over a base that agrees is skipped without
/// reading the file), and live base entries that are gone from disk. Pure: names are
/// judged by `accept` (see `NFCNames`), rules by `skips`.
struct ScanDiff {
    /// Paths to journal, in scan order, then the ones gone.
    private(set) var toPush: [String] = []
    /// Name problems whose path is no longer on disk: no longer a problem.
    private(set) var namesGone: [String] = []
    /// Directories on disk, the root included: the watches the folder needs.
    private(set) var directories = 1

    /// `nameProblems`: the paths with a name problem before the scan.
    init(
        items: [ScannedItem], baseline: ScanBaseline, nameProblems: some Sequence<String>,
        accept: (String) -> Bool, skips: (String, Bool) -> Bool
    ) {
        // Which known paths are on disk, by their place in `baseline.known`.
        var seen = [Bool](repeating: false, count: baseline.known.count)
        var gone = Set(nameProblems)
        for item in items {
            if item.stat.kind == .directory { directories += 1 }
            if !gone.isEmpty { gone.remove(item.path) }
            guard accept(item.path) else { continue }
            if let at = baseline.positions[item.path] {
                seen[at] = true
                if let synced = baseline.known[at].synced, synced.inSync, synced.stat == item.stat { continue }
            }
            toPush.append(item.path)
        }
        var missing: [String] = []
        for (at, known) in baseline.known.enumerated() where !seen[at] {
            if let isDirectory = known.liveBaseIsDirectory, !skips(known.path, isDirectory) { missing.append(known.path) }
        }
        // In path order (the index's: by UTF-8 bytes), as the server's entries are.
        toPush += missing.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        namesGone = gone.sorted()
    }
}
