import SyncCore

/// Files and directories a page's remote deletes remove, planned and waiting to be applied together
/// (`RemoteApplier.recordDeletes`): one index transaction records the run's tombstones with
/// an intent each, the files go to the trash, one barrier makes that durable, and one more
/// transaction drops the intents; not a transaction each. A run ends before anything else of
/// the page is applied (a directory's delete comes after its files'), and at `limit`.
struct PendingDeletes: Sendable {
    struct Delete: Sendable {
        var entry: WireEntry
        /// What is removed from the disk (the planned local kind).
        var kind: EntryKind
        /// What was at the path when it was planned: the trash move checks a file is still that,
        /// and removes a directory only while it has this inode (and only if empty).
        var expected: FileStat
        /// The path's records then, put back if the file stays (written meanwhile, or a kill).
        var local: LocalRecord?
        var base: BaseRecord?

        var intent: DeleteIntent {
            DeleteIntent(
                entry: entry, inode: expected.inode, ctimeNs: expected.ctimeNs, directory: kind == .directory,
                previousLocal: local, previousBase: base)
        }
    }

    private(set) var deletes: [Delete] = []

    /// What runs remove; a symlink goes one by one (a run of one).
    static let kinds: Set<EntryKind> = [.file, .directory]

    /// Deletes applied together at most.
    static let limit = 256

    var isEmpty: Bool { deletes.isEmpty }
    var isFull: Bool { deletes.count >= Self.limit }

    mutating func add(_ delete: Delete) { deletes.append(delete) }

    mutating func take() -> [Delete] {
        defer { deletes = [] }
        return deletes
    }
}
