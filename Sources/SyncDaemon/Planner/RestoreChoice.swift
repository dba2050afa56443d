import SyncCore

/// Which version `syncctl restore PATH [--rev N]` brings back, from the
/// server's history of the path (newest first). Pure: no I/O.
public enum RestoreChoice {
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The version to restore and the path's current version (the commit's base).
    public static func choose(path: String, history: [WireEntry], rev: Int64?) -> Result<(restore: WireEntry, current: WireEntry), Refusal> {
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
            if chosen.rev == current.rev {
                return .failure(Refusal(message: "rev \(rev) is already the current version of \(path)"))
            }
            return .success((chosen, current))
        }
        // Deleted: its last content. Overwritten: the last content before the current one.
        let older = history.dropFirst().first { !$0.deleted && (current.deleted || $0.contentHash != current.contentHash || $0.kind != current.kind) }
        guard let chosen = older else {
            return .failure(Refusal(message: "\(path) has no older version to restore"))
        }
        return .success((chosen, current))
    }

    /// The commit that brings `version` back on top of `current`.
    public static func change(restoring version: WireEntry, over current: WireEntry) -> CommitChange {
        CommitChange(
            path: version.path, baseRev: current.rev, kind: version.kind, size: version.size, mtimeNs: version.mtimeNs,
            mode: version.mode, chunks: version.chunks, contentHash: version.contentHash, deleted: false,
            symlinkTarget: version.symlinkTarget)
    }
}
