import SyncCore

/// Files a page's remote deletes remove, planned and waiting to be recorded together
/// (`RemoteApplier.recordDeletes`): one index transaction (one fsync) for a run of them,
/// then each moved to the trash, instead of a transaction each. A run ends before anything
/// else of the page is applied (a directory's delete comes after its files'), and at `limit`.
struct PendingDeletes: Sendable {
    struct Delete: Sendable {
        var entry: WireEntry
        /// What was at the path when it was planned, and its records then (put back if the
        /// user writes to it before it reaches the trash).
        var expected: FileStat
        var local: LocalRecord?
        var base: BaseRecord?
    }

    private(set) var deletes: [Delete] = []

    /// Deletes recorded together at most.
    static let limit = 256

    var isEmpty: Bool { deletes.isEmpty }
    var isFull: Bool { deletes.count >= Self.limit }

    mutating func add(_ delete: Delete) { deletes.append(delete) }

    mutating func take() -> [Delete] {
        defer { deletes = [] }
        return deletes
    }
}

extension RemoteApplier {
    /// A remote delete of a file this device holds as synced, planned now and left to
    /// `recordDeletes`; nil when the entry is anything else (then it is applied one by one).
    func planDelete(_ entry: WireEntry) throws -> PendingDeletes.Delete? {
        guard entry.deleted, entry.kind == .file else { return nil }
        let records = try index.records.read(folder: folder, paths: [entry.path])
        let (view, stat) = try materializer.inspect(entry.path, record: records.local[entry.path])
        guard let stat, view.kind == .file,
            Planner.plan(local: view, base: records.base[entry.path], remote: entry) == .deleteLocal
        else { return nil }
        return PendingDeletes.Delete(entry: entry, expected: stat, local: records.local[entry.path], base: records.base[entry.path])
    }

    /// Records the run's deletes in one transaction, each only over the base it was planned
    /// against, then moves each to the trash. One whose base changed meanwhile, or that was
    /// written to before its move (its records put back), is planned again one by one.
    func recordDeletes(_ pending: inout PendingDeletes, device: String, stamp: String, into outcome: inout Outcome) async {
        guard !pending.isEmpty else { return }
        let run = pending.take()
        let recorded: Set<String>
        do {
            recorded = try index.records.apply(
                folder: folder, guarded: run.map { GuardedUpdate(path: $0.entry.path, update: Self.deleteRecords($0.entry), ifBase: $0.base) })
        } catch {
            // Not recorded: each goes the one-by-one way, which says what is wrong.
            for delete in run { await applyOne(delete.entry, device: device, stamp: stamp, into: &outcome) }
            return
        }
        for delete in run {
            guard recorded.contains(delete.entry.path) else {
                await applyOne(delete.entry, device: device, stamp: stamp, into: &outcome)
                continue
            }
            do {
                try trashDeleted(
                    delete.entry, kind: .file, expected: delete.expected, before: (delete.local, delete.base), stamp: stamp,
                    into: &outcome)
                outcome.applied.append((delete.entry.path, delete.entry.rev))
            } catch {
                // Written since (its records are back): planned again, an edit beats the delete.
                // Anything else is retried the same way, and reported there if it fails again.
                await applyOne(delete.entry, device: device, stamp: stamp, into: &outcome)
            }
        }
    }
}
