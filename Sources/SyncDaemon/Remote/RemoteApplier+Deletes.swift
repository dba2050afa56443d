import SyncCore

/// Remote deletes of files and directories, applied in runs (decisions 0033, 0034).
extension RemoteApplier {
    /// What became of a run's deletes (`removeRecorded`).
    struct RemovedRun {
        /// In the trash (a directory: removed), durably, and recorded.
        var removed: [PendingDeletes.Delete] = []
        /// Directories found not empty (new files in them since): the tombstone stays
        /// recorded, the directory stays, and is pushed back as new with what is in it.
        var notEmpty: [PendingDeletes.Delete] = []
        /// Not recorded (the path's base changed since it was planned), or written meanwhile
        /// (its records put back): to be planned again.
        var planAgain: [PendingDeletes.Delete] = []
        /// Could not be moved to the trash (its records put back): to be retried later, with
        /// the error shown.
        var failed: [(delete: PendingDeletes.Delete, error: DaemonError)] = []
        /// Left to the next start, with the error shown: moved but perhaps not durably (the
        /// barrier failed), or not moved with its records not put back. Their intents stay,
        /// and the next start applies again any delete whose file is still there untouched
        /// (a retry now could only find the tombstone recorded, and do nothing).
        var unresolved: [(delete: PendingDeletes.Delete, error: DaemonError)] = []

        /// Whether a delete below `directory` failed or was left to the next start: then the
        /// directory is not empty because of it, not because of something new of the user's,
        /// and it is retried (or resolved) with it rather than pushed back.
        func keepsSomethingBelow(_ directory: String) -> Bool {
            let prefix = directory + "/"
            return failed.contains { $0.delete.entry.path.hasPrefix(prefix) }
                || unresolved.contains { $0.delete.entry.path.hasPrefix(prefix) }
        }
    }

    /// A remote delete of a file or directory this device holds as synced, planned now and
    /// left to `recordDeletes`; nil when the entry is anything else (then it is applied one by
    /// one). A directory's files come before it in its run (children before parents), and
    /// are moved before it is removed.
    func planDelete(_ entry: WireEntry) throws -> PendingDeletes.Delete? {
        guard entry.deleted, PendingDeletes.kinds.contains(entry.kind) else { return nil }
        let records = try index.records.read(folder: folder, paths: [entry.path])
        let (view, stat) = try materializer.inspect(entry.path, record: records.local[entry.path])
        guard let stat, view.kind == entry.kind,
            Planner.plan(local: view, base: records.base[entry.path], remote: entry) == .deleteLocal
        else { return nil }
        return PendingDeletes.Delete(
            entry: entry, kind: entry.kind, expected: stat, local: records.local[entry.path], base: records.base[entry.path])
    }

    /// Applies the run of deletes waiting in `pending`, and notes how each went. One whose
    /// base changed meanwhile, or that was written to before its move, is planned again one
    /// by one (an edit beats a delete); one that could not be moved is kept for a retry; one
    /// left to the next start shows its error.
    func recordDeletes(_ pending: inout PendingDeletes, device: String, stamp: String, into outcome: inout Outcome) async {
        guard !pending.isEmpty else { return }
        let run = pending.take()
        let done: RemovedRun
        do {
            done = try removeRecorded(run, stamp: stamp)
        } catch {
            // Nothing recorded: each goes the one-by-one way, which says what is wrong.
            for delete in run { await applyOne(delete.entry, device: device, stamp: stamp, into: &outcome) }
            return
        }
        for delete in done.removed { outcome.applied.append((delete.entry.path, delete.entry.rev)) }
        for delete in done.notEmpty {
            outcome.applied.append((delete.entry.path, delete.entry.rev))
            outcome.pushes.append(delete.entry.path)
        }
        for (delete, error) in done.failed {
            outcome.errors.append((delete.entry.path, error))
            outcome.failed.append((delete.entry, error))
            logger.warning("cannot apply remote delete", metadata: ["path": "\(delete.entry.path)", "error": "\(error)"])
        }
        for (delete, error) in done.unresolved {
            outcome.errors.append((delete.entry.path, error))
            logger.error("a remote delete is left to the next start", metadata: ["path": "\(delete.entry.path)", "error": "\(error)"])
        }
        for delete in done.planAgain { await applyOne(delete.entry, device: device, stamp: stamp, into: &outcome) }
    }

    /// Records the run's tombstones with an intent each (one transaction, each only over the
    /// base it was planned against), moves each file to the trash, makes the moves durable
    /// (one barrier), then drops the intents (one transaction). A kill -9 or a power cut
    /// anywhere in between leaves intents, which the next start resolves by what is on disk
    /// (`RecordStore.recoverInterruptedDeletes`). Throws when the first transaction fails:
    /// then nothing was recorded or moved.
    func removeRecorded(_ run: [PendingDeletes.Delete], stamp: String) throws -> RemovedRun {
        let updates = run.map { delete in
            var update = Self.deleteRecords(delete.entry)
            update.deleteIntents = [delete.intent]
            return GuardedUpdate(path: delete.entry.path, update: update, ifBase: delete.base)
        }
        let recorded = try index.records.apply(folder: folder, guarded: updates)
        CrashPoint.reached(.beforeDeletesTrashed, paths: Array(recorded))
        var done = RemovedRun()
        var barrier = BarrierDirectories()
        for delete in run {
            guard recorded.contains(delete.entry.path) else {
                done.planAgain.append(delete)
                continue
            }
            CrashPoint.reached(.beforeDeleteRemoved, path: delete.entry.path)
            do {
                barrier.add(try materializer.moveToTrash(delete.entry.path, kind: delete.kind, stamp: stamp, expected: delete.expected))
                done.removed.append(delete)
            } catch {
                if error.code == .notEmpty && !done.keepsSomethingBelow(delete.entry.path) {
                    done.notEmpty.append(delete)
                } else if error.code == .notEmpty {
                    let kept = DaemonError(.notEmpty, "not empty: a delete below it failed; retried with it", path: delete.entry.path)
                    keepFile(delete, moveFailed: kept, into: &done)
                } else {
                    keepFile(delete, moveFailed: error, into: &done)
                }
            }
        }
        guard !done.removed.isEmpty else { return dropIntents(done) }
        do {
            if InjectedFault.fails(.deleteBarrier) { throw DaemonError(.io, "fsync: input/output error (injected)") }
            try barrier.sync()
        } catch {
            // Moved, perhaps not durably: the intents stay for the next start, which applies
            // again any delete whose move a power cut lost. Each path shows the error meanwhile.
            let problem = Self.problem(error, path: nil)
            let left = DaemonError(
                .interrupted, "moved to the trash, perhaps not durably (\(problem.message)); looked at again at the next start",
                underlying: problem)
            done.unresolved += done.removed.map { ($0, left) }
            done.removed = []
            return dropIntents(done)
        }
        CrashPoint.reached(.beforeDeletesDone, paths: done.removed.map(\.entry.path))
        return dropIntents(done)
    }

    /// Drops the intents of what is settled: removed durably, or a directory found not empty
    /// (it stays, and is pushed back).
    private func dropIntents(_ done: RemovedRun) -> RemovedRun {
        let settled = (done.removed + done.notEmpty).map(\.entry.path)
        guard !settled.isEmpty else { return done }
        do {
            var update = IndexUpdate()
            update.deletesDone = settled
            try index.records.apply(folder: folder, update)
        } catch {
            // Durable already: the intents left find their files gone (or their directories
            // not empty, which a retry then finds too) at the next start.
            logger.warning("cannot drop the intents of applied remote deletes", metadata: ["error": "\(error)"])
        }
        return done
    }

    /// A file a recorded delete did not move: its records are put back (its intent dropped
    /// with them), and it is planned again (written meanwhile) or retried later.
    private func keepFile(_ delete: PendingDeletes.Delete, moveFailed failure: DaemonError, into done: inout RemovedRun) {
        let path = delete.entry.path
        do {
            // A file put back from the trash (written meanwhile, or not copied to a trash on
            // another file system) is durably back before its intent goes: a power cut must not
            // leave it in the trash, or under a staging name, with its delete undone.
            try materializer.syncParent(of: path)
            try index.records.restore(
                folder: folder, path: path, local: delete.local, base: delete.base, onlyOver: delete.entry.baseRecord)
        } catch {
            // The intent stays: the next start puts the records back if the file is still there
            // untouched, and applies the delete again; pushes of the path wait until then.
            let problem = Self.problem(error, path: path)
            done.unresolved.append((delete, DaemonError(
                .interrupted, "\(failure.message); its records could not be put back (\(problem.message)): looked at again at the next start",
                path: path, underlying: problem)))
            return
        }
        if failure.code == .changedMeanwhile {
            done.planAgain.append(delete)
        } else {
            done.failed.append((delete, Self.problem(failure, path: path)))
        }
    }

    /// What a remote delete records: the tombstone, and no local record at or below the path.
    static func deleteRecords(_ entry: WireEntry) -> IndexUpdate {
        var update = IndexUpdate()
        update.bases.append(entry.baseRecord)
        update.removedLocals.append(entry.path)
        return update
    }
}
