/// A file version a device wrote and still owned at the end of its workload.
struct TrackedVersion: Sendable, Equatable {
    var device: String
    var opIndex: Int
    var contentHash: String
    /// Every path the device itself gave it (written at the first, renamed or
    /// moved along with its directory to the next), the last being where it is
    /// now as far as the device knows.
    var lineage: [String]
}

/// The "no version is lost" invariant of the convergence test.
///
/// What is guaranteed: the version a device wrote last at a path and did not
/// itself overwrite or delete afterwards (following its own renames and
/// directory moves). Such a version was on that device's disk with nothing
/// more of the device's own doing to it, so syncd must get it to the server
/// (committed at the path, or kept as a conflict copy and uploaded) — or the
/// server already held it when another device's change replaced it here.
/// What is not guaranteed: a version the same device overwrote, truncated,
/// appended to or deleted before it was uploaded (coalescing may rightly skip
/// it), so those are not tracked at all; nor one written through a descriptor opened just
/// before a download renamed a new version over the path (it went to the replaced file,
/// outside the folder: `WorkloadApplier` sees the file unlinked, seed 4195799560).
///
/// After quiescence a tracked version must be found
///   1. in the final tree at one of its lineage paths, or
///   2. in the final tree as a conflict copy (any path containing " (conflict "),
///   3. in the server history of one of its lineage paths (it was committed and
///      then changed, moved or deleted by the other device),
///   4. in the server history of a conflict copy (committed as a copy that was
///      later changed or deleted), or
///   5. in the server history of a path the moves made after it was written take a lineage
///      path to (`movedAlong`: written into a directory the other device moved meanwhile, it
///      went up where the move put it).
/// Write contents are unique per (seed, device, op), so a content hash names
/// one write (except empty files, which are all alike: a weaker but sound check).
enum VersionAudit {
    static let conflictMarker = " (conflict "

    /// The paths `lineage`'s paths reach through `moves` (renames and directory moves either
    /// device applied after the version was written, in the order they were made), beyond the
    /// lineage itself. A file written into a directory the other device moved meanwhile goes
    /// up where the move put it (it moves along with its directory when the move is applied
    /// here): its lineage, the device's own doing, does not name that path (seed 2665233287,
    /// session 37). One pass over the moves: it ends, whatever moves back and forth.
    static func movedAlong(_ lineage: [String], moves: [(from: String, to: String)]) -> [String] {
        var reached = Set(lineage)
        for move in moves {
            for path in reached where path == move.from || TreeModel.isInside(path, move.from) {
                reached.insert(move.to + path.dropFirst(move.from.count))
            }
        }
        return reached.subtracting(lineage).sorted()
    }

    /// Where `version` survives, or nil if it is lost. `history` maps a path to the
    /// content hashes of its live file versions on the server (paths not fetched
    /// are treated as unknown, i.e. no versions).
    static func locate(
        _ version: TrackedVersion, tree: [String: TreeItem], history: [String: Set<String>], conflictPaths: [String]
    ) -> String? {
        let h = version.contentHash
        for p in version.lineage.reversed() where tree[p] == .file(h) { return "at \(p)" }
        for (p, item) in tree.sorted(by: { $0.key < $1.key }) where p.contains(conflictMarker) && item == .file(h) {
            return "conflict copy \(p)"
        }
        for p in version.lineage.reversed() where history[p]?.contains(h) == true { return "history of \(p)" }
        for p in conflictPaths.sorted() where history[p]?.contains(h) == true { return "history of conflict copy \(p)" }
        return nil
    }
}
