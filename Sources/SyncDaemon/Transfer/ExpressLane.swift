/// Which local changes skip the queue while a bulk batch is in flight: a small edit made
/// during a 1 GiB upload or a 10,000-file push goes up beside it instead of behind it.
///
/// Only plain changes journaled after the bulk batch was claimed are candidates (not moves,
/// which the bulk lane orders; not deletes, which the delete-wave guard judges together),
/// and only small ones: a regular file of at most `maxFileBytes`, a directory, a symlink.
struct ExpressLane: Sendable {
    static let maxFileBytes: Int64 = 1 << 20
    /// Candidates looked at per round (those refused are remembered for the bulk batch's life).
    static let candidateLimit = 128

    /// Two express lanes run side by side: edits of paths already in sync, and new paths. A
    /// burst of new files (a copy still being journaled) keeps the second busy batch after
    /// batch; an edit goes up in the first, never waiting for one of those to finish.
    enum Lane: Sendable, CaseIterable {
        case edits, newPaths

        /// Paths per batch: new paths a few at a time, newest first (the burst's own files
        /// wait for the bulk lane; a file just made by hand goes up at once).
        var batchLimit: Int {
            switch self {
            case .edits: return 32
            case .newPaths: return 4
            }
        }

        func takes(synced: Bool) -> Bool { synced == (self == .edits) }
    }

    /// The paths of one batch of `lane`, from the candidates in the order given: those
    /// `admits` turns down are added to `refused`.
    static func choose(
        _ candidates: [(path: String, synced: Bool)], lane: Lane, refused: inout Set<String>,
        lookup: (String) -> FileStat.Lookup
    ) -> [String] {
        var chosen: [String] = []
        for candidate in candidates
        where lane.takes(synced: candidate.synced) && !refused.contains(candidate.path) && chosen.count < lane.batchLimit {
            guard admits(lookup(candidate.path)) else {
                refused.insert(candidate.path)
                continue
            }
            chosen.append(candidate.path)
        }
        return chosen
    }

    /// The new-path candidates that may go up now: those whose parent is the root or a
    /// directory the server holds (`parents`: the base records of their parents), with no
    /// ancestor in flight (`running`). A file below a path being replaced (a symlink becoming a
    /// directory, pushed by the edits lane at the same moment) would otherwise race it to the
    /// server and be refused; it waits for a later round or the bulk lane.
    static func placeable(
        _ candidates: [(path: String, synced: Bool)], parents: [String: BaseRecord], running: Set<String>
    ) -> [(path: String, synced: Bool)] {
        candidates.filter { candidate in
            let parent = parentPath(candidate.path)
            if !parent.isEmpty {
                guard let base = parents[parent], base.kind == .directory, !base.deleted else { return false }
            }
            var ancestor = parent
            while !ancestor.isEmpty {
                if running.contains(ancestor) { return false }
                ancestor = parentPath(ancestor)
            }
            return true
        }
    }

    /// `a/b` for `a/b/c`; "" for a name at the root.
    static func parentPath(_ path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
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
