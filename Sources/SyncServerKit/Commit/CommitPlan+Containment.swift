import SyncCore

/// No live entry may lie below a live symlink: a device that received both would be asked to
/// write through the link (docs/security.md). Checked on the state a commit leaves behind,
/// inside its transaction, so the order of its changes does not matter; a violation rejects
/// the whole commit.
extension CommitPlan {
    /// What the check needs beyond what the plan read: the entry at every ancestor of a
    /// touched path, and everything live below each touched symlink.
    func containmentReads() -> CommitReads {
        var reads = CommitReads()
        for (path, kind) in touched {
            for ancestor in Self.ancestors(of: path) where entry(at: ancestor) == nil {
                reads.paths.insert(ancestor)
            }
            if kind == .symlink { reads.subtrees.insert(path) }
        }
        return reads
    }

    /// Throws `badRequest` naming the first path that would lie below a symlink. `read` must
    /// hold what `containmentReads()` named (added to what the plan read).
    func checkContainment() throws {
        var symlinkAt: [String: Bool] = [:]
        for (path, kind) in touched {
            for ancestor in Self.ancestors(of: path) {
                let isLink: Bool
                if let known = symlinkAt[ancestor] {
                    isLink = known
                } else {
                    let here = entry(at: ancestor)
                    isLink = here.map { !$0.deleted && $0.kind == .symlink } ?? false
                    symlinkAt[ancestor] = isLink
                }
                if isLink {
                    throw APIError.badRequest("\(path): its parent \(ancestor) is a symlink; nothing may be stored below a symlink")
                }
            }
            if kind == .symlink, let child = liveEntries(below: path).first {
                throw APIError.badRequest(
                    "\(path): cannot be a symlink while \(child.path) lies below it; delete what is below it in the same commit")
            }
        }
    }

    /// `a/b/c` → `a`, `a/b`.
    static func ancestors(of path: String) -> [String] { RelativePath.ancestors(of: path) }
}
