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

        /// What a delete of this run below `directory` became, when that may be why the
        /// directory is not empty: planned again (written meanwhile: the directory is planned
        /// again after it), or failed or left to the next start (the directory is kept with it).
        func below(_ directory: String) -> Below? {
            let prefix = directory + "/"
            if planAgain.contains(where: { $0.entry.path.hasPrefix(prefix) }) { return .plannedAgain }
            if failed.contains(where: { $0.delete.entry.path.hasPrefix(prefix) })
                || unresolved.contains(where: { $0.delete.entry.path.hasPrefix(prefix) })
            {
                return .notDone
            }
            return nil
        }

        enum Below { case plannedAgain, notDone }
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
                guard error.code == .notEmpty else {
                    keepFile(delete, moveFailed: error, into: &done)
                    continue
                }
                notEmpty(delete, in: run, into: &done)
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

    /// A directory of the run found not empty. Pushed back as new (what is in it is the
    /// user's) unless a delete below it is not done: one of this run planned again (written
    /// meanwhile; the directory is planned again after it), or one that failed, is left to
    /// the next start or kept for a retry, in this run or before it (the directory is kept
    /// for a retry too, after it). Pushed back then, it would come back on every device and
    /// stay there empty once that delete went through.
    private func notEmpty(_ delete: PendingDeletes.Delete, in run: [PendingDeletes.Delete], into done: inout RemovedRun) {
        let path = delete.entry.path
        var below = done.below(path)
        if below == nil {
            do {
                // (This run's own intents are there until it ends: only others count.)
                let pending = try index.records.deletesPending(folder: folder, below: path).subtracting(run.map(\.entry.path))
                if !pending.isEmpty { below = .notDone }
            } catch {
                keepFile(delete, moveFailed: Self.problem(error, path: path), into: &done)
                return
            }
        }
        switch below {
        case nil:
            done.notEmpty.append(delete)
        case .plannedAgain:
            let again = DaemonError(.changedMeanwhile, "not empty: a file below it changed meanwhile; planned again after it", path: path)
            keepFile(delete, moveFailed: again, into: &done)
        case .notDone:
            let kept = DaemonError(.notEmpty, "not empty: a delete below it is not done; retried after it", path: path)
            keepFile(delete, moveFailed: kept, into: &done)
        }
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
