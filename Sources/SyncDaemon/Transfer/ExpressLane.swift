/// Which local changes skip the queue while a bulk batch is in flight: a small edit made
/// during a 1 GiB upload or a 10,000-file push goes up beside it instead of behind it.
///
/// Only plain changes journaled after the bulk batch was claimed are candidates (not moves,
/// which the bulk lane orders; not deletes, which the delete-wave guard judges together),
/// and only small ones: a regular file of at most `maxFileBytes`, a directory, a symlink.
struct ExpressLane: Sendable {
    static let maxFileBytes: Int64 = 1 << 20
    /// At most this many paths per express batch, of which at most `newPathsPerBatch` are
    /// new (not in sync yet): a burst of new files (a copy still being journaled) would
    /// otherwise fill every express batch, and an edit would wait for one to finish.
    static let batchLimit = 32
    static let newPathsPerBatch = 4
    /// Candidates looked at per round (those refused are remembered for the bulk batch's life).
    static let candidateLimit = 128

    /// The paths of one express batch, from the candidates in the order given (edits of
    /// synced paths first): those `admits` turns down are added to `refused`.
    static func choose(
        _ candidates: [(path: String, synced: Bool)], refused: inout Set<String>, lookup: (String) -> FileStat.Lookup
    ) -> [String] {
        var chosen: [String] = []
        var new = 0
        for candidate in candidates where !refused.contains(candidate.path) && chosen.count < batchLimit {
            if !candidate.synced && new >= newPathsPerBatch { continue }
            guard admits(lookup(candidate.path)) else {
                refused.insert(candidate.path)
                continue
            }
            chosen.append(candidate.path)
            if !candidate.synced { new += 1 }
        }
        return chosen
    }

    /// Whether what is at the path now may go in the express lane.
    static func admits(_ lookup: FileStat.Lookup) -> Bool {
        guard case .found(let stat) = lookup else { return false }
        switch stat.kind {
        case .file: return stat.size <= maxFileBytes
        case .directory, .symlink: return true
        }
    }
}
