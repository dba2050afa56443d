import SyncCore

/// What is on disk at a path right now, as far as planning needs to know.
public struct LocalView: Sendable, Equatable {
    public var kind: EntryKind?
    /// Content hash of what is on disk (nil when nothing is there).
    public var contentHash: String?
    /// Permission bits of a file or directory (nil: a symlink, nothing there, or not known).
    public var mode: UInt32?

    public static let absent = LocalView(kind: nil, contentHash: nil)
    public init(kind: EntryKind?, contentHash: String?, mode: UInt32? = nil) {
        self.kind = kind
        self.contentHash = contentHash
        self.mode = mode
    }
    public var exists: Bool { kind != nil }
}

/// What to do about one remote entry.
public enum PlanAction: Sendable, Equatable {
    /// We already have this revision.
    case nothing
    /// Both sides hold the same thing: just record the remote rev as the base.
    case adopt
    /// Write the remote version to disk.
    case download
    /// Remove the local path (into the trash).
    case deleteLocal
    /// Both sides changed differently: keep the local version as a conflict copy, then download.
    case conflict
    /// The local edit wins over a remote delete: record the tombstone as base and push the local version.
    case keepLocalEdit
    /// Same content on both sides, only the permission bits differ: give the local path the remote mode.
    case setMode
}

/// Permission bits as compared between the sides: rwx and sticky (what is sent); 0 or
/// nil is "not known" (older records), which never differs from anything.
public enum Modes {
    public static func known(_ mode: UInt32?) -> UInt32? {
        guard let mode, mode & EntryLimits.modeMask != 0 else { return nil }
        return mode & EntryLimits.modeMask
    }
}

/// Three-way decision per path: local × base × remote. Pure and deterministic.
public enum Planner {
    public static func plan(local: LocalView, base: BaseRecord?, remote: WireEntry) -> PlanAction {
        // Already seen: this revision, or a newer one of this path (a stale feed entry, e.g.
        // our own older commit arriving after a newer push was recorded).
        if let base, base.rev >= remote.rev { return .nothing }
        let liveBase = base.flatMap { $0.deleted ? nil : $0 }
        let localChanged: Bool
        switch (local.exists, liveBase) {
        case (false, nil): localChanged = false
        case (false, .some): localChanged = true  // deleted here
        case (true, nil): localChanged = true  // created here
        case (true, .some(let b)): localChanged = local.kind != b.kind || local.contentHash != b.contentHash
        }
        // (A chmod alone is not a content change: a remote new version overwrites it.)
        let sameAsRemote = remote.deleted
            ? !local.exists
            : local.kind == remote.kind && local.contentHash == remote.contentHash
        if sameAsRemote {
            guard !remote.deleted, let localMode = local.mode, let remoteMode = Modes.known(remote.mode),
                localMode != remoteMode
            else { return .adopt }
            // Only the mode differs. A chmod here on top of the content both sides agree on,
            // while the remote did not change the mode: ours goes up. Otherwise theirs applies.
            if let b = liveBase, let baseMode = Modes.known(b.mode), b.kind == local.kind, b.contentHash == local.contentHash,
                localMode != baseMode, remoteMode == baseMode
            {
                return .keepLocalEdit
            }
            return .setMode
        }
        if remote.deleted {
            // Edit beats delete: a local change survives a remote delete.
            return localChanged ? .keepLocalEdit : .deleteLocal
        }
        if !localChanged { return .download }
        // A new revision of the content we already agreed on (a move's arrival, a
        // re-commit) is no edit: the local change (or delete) goes on top of it.
        if let b = liveBase, b.kind == remote.kind, b.contentHash == remote.contentHash { return .keepLocalEdit }
        // Deleted here but edited there: edit beats delete.
        if !local.exists { return .download }
        return .conflict
    }
}
