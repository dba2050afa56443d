import SyncCore

/// Which version `syncctl restore PATH [--rev N]` brings back, from the
/// server's history of the path (newest first). Pure: no I/O.
public enum RestoreChoice {
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public enum Choice: Sendable, Equatable {
        /// Commit `restore` on top of `current` (the commit's base).
        case restore(WireEntry, over: WireEntry)
        /// The path already holds that version's content, at `current`: nothing to commit
        /// (restoring the same version twice makes one revision, not two).
        case alreadyCurrent(WireEntry, current: WireEntry)
    }

    /// The version to restore, or that the path already holds it.
    public static func choose(path: String, history: [WireEntry], rev: Int64?) -> Result<Choice, Refusal> {
        guard let current = history.first else {
            return .failure(Refusal(message: "the server has no version of \(path) (never synced, or purged after the retention period)"))
        }
        if let rev {
            guard let chosen = history.first(where: { $0.rev == rev }) else {
                let known = history.map { "\($0.rev)\($0.deleted ? " (deleted)" : "")" }.joined(separator: ", ")
                return .failure(Refusal(message: "\(path) has no version at rev \(rev); the server keeps revs \(known)"))
            }
            if chosen.deleted {
                return .failure(Refusal(message: "rev \(rev) of \(path) is its deletion; pick a rev that holds content"))
            }
            if chosen.rev == current.rev || holdsSameVersion(current, as: chosen) {
                return .success(.alreadyCurrent(chosen, current: current))
            }
            return .success(.restore(chosen, over: current))
        }
        // Deleted: its last content. Overwritten: the last content before the current one.
        let older = history.dropFirst().first { !$0.deleted && (current.deleted || $0.contentHash != current.contentHash || $0.kind != current.kind) }
        guard let chosen = older else {
            return .failure(Refusal(message: "\(path) has no older version to restore"))
        }
        return .success(.restore(chosen, over: current))
    }

    /// `current` is live and holds what `version` holds (kind, content, mode, link target).
    static func holdsSameVersion(_ current: WireEntry, as version: WireEntry) -> Bool {
        !current.deleted && current.kind == version.kind && current.contentHash == version.contentHash
            && current.mode == version.mode && current.symlinkTarget == version.symlinkTarget
    }

    /// The commit that brings `version` back on top of `current`.
    public static func change(restoring version: WireEntry, over current: WireEntry) -> CommitChange {
        CommitChange(
            path: version.path, baseRev: current.rev, kind: version.kind, size: version.size, mtimeNs: version.mtimeNs,
            mode: version.mode, chunks: version.chunks, contentHash: version.contentHash, deleted: false,
            symlinkTarget: version.symlinkTarget)
    }
}
