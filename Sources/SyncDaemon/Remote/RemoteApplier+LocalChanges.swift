import Foundation
import SyncClient
import SyncCore

/// What a remote entry does to a path that is already there: renamed for a move,
/// moved to the trash for a delete, set aside as a conflict copy.
extension RemoteApplier {
    /// A remote move of an unchanged file: rename it locally (nothing copied,
    /// nothing trashed), its records left to `recordRenames` with the others of the run
    /// (`PendingRenames`). False when either side is not as planned (the local file was
    /// edited, or something is at the new path): then the entries are applied one by one
    /// as usual.
    func renameLocal(from tombstone: WireEntry, to entry: WireEntry, into pending: inout PendingRenames) throws -> Bool {
        let records = try index.records.read(folder: folder, paths: [tombstone.path, entry.path])
        let (oldView, oldStat) = try materializer.inspect(tombstone.path, record: records.local[tombstone.path])
        guard let oldStat, oldView.kind == .file, oldView.contentHash == entry.contentHash,
            Planner.plan(local: oldView, base: records.base[tombstone.path], remote: tombstone) == .deleteLocal
        else { return false }
        let (newView, _) = try materializer.inspect(entry.path, record: records.local[entry.path])
        guard !newView.exists, Planner.plan(local: newView, base: records.base[entry.path], remote: entry) == .download else {
            return false
        }
        // Its rename's event is the echo (the records are written for it): expected with the
        // mode and mtime given before the rename.
        let moved: (stat: FileStat, directories: [DirectoryHandle])
        do {
            moved = try materializer.move(
                tombstone.path, to: entry.path, expected: oldStat, mode: entry.mode, mtimeNs: entry.mtimeNs,
                beforeRename: { echoes.expect(entry.path, stat: $0) })
        } catch {
            echoes.forget(entry.path)
            throw error
        }
        var update = IndexUpdate()
        update.bases.append(tombstone.baseRecord)
        update.bases.append(entry.baseRecord)
        update.removedLocals.append(tombstone.path)
        // No chunk lengths: `move` may set the mtime back, so a write in the instant before
        // would leave a settled stat over other bytes (the next chunking finds them again).
        update.locals.append(entry.localRecord(stat: moved.stat))
        pending.add(
            GuardedUpdate(
                path: entry.path, update: update, ifBase: records.base[entry.path],
                alsoIfBase: (tombstone.path, records.base[tombstone.path])), arrival: entry,
            departure: tombstone, directories: moved.directories)
        logger.trace("remote move renamed locally", metadata: ["path": "\(entry.path)", "from": "\(tombstone.path)"])
        return true
    }

    /// Makes the renames of `pending` durable (their directories fsynced, or their file
    /// systems synced), then records them in one transaction, each only over the base its
    /// rename was planned against. A rename whose record is left out (a push recorded the
    /// path meanwhile) has both its paths journaled and its departure applied the usual
    /// way; if the barrier or the transaction fails, the arrivals and departures are kept for
    /// a retry (`heldBack`: not applied in this page), which finds the files renamed and
    /// adopts them.
    func recordRenames(
        _ pending: inout PendingRenames, renamedAway: inout Set<String>, heldBack: inout Set<String>, into outcome: inout Outcome
    ) {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending = PendingRenames()
        do {
            try batch.barrier.sync()
            CrashPoint.reached(.beforeRenamesRecorded, paths: batch.moves.map(\.arrival.path))
            let recorded = try index.records.apply(folder: folder, guarded: batch.updates)
            for (arrival, departure) in batch.moves {
                outcome.applied.append((arrival.path, arrival.rev))
                guard !recorded.contains(arrival.path) else { continue }
                renamedAway.remove(departure.path)
                outcome.pushes += [arrival.path, departure.path]
            }
        } catch {
            let problem = Self.problem(error, path: nil)
            logger.warning("cannot record renames for remote moves", metadata: ["count": "\(batch.moves.count)", "error": "\(problem)"])
            for (arrival, departure) in batch.moves {
                renamedAway.remove(departure.path)
                heldBack.insert(departure.path)
                outcome.errors.append((arrival.path, problem))
                outcome.failed.append((arrival, problem))
                outcome.failed.append((departure, problem))
            }
        }
    }

    /// Removes the local path for a remote delete, if it is still what was planned
    /// against (`expected`): a version written since then is the user's, and stays.
    func deleteLocal(
        _ entry: WireEntry, kind: EntryKind, expected: FileStat?, before: (local: LocalRecord?, base: BaseRecord?),
        stamp: String, into outcome: inout Outcome
    ) throws {
        if let expected {
            // A run of one: recorded with an intent, moved (a directory: removed), made durable
            // (`removeRecorded`).
            let delete = PendingDeletes.Delete(entry: entry, kind: kind, expected: expected, local: before.local, base: before.base)
            let done = try removeRecorded([delete], stamp: stamp)
            if let failed = done.failed.first { throw failed.error }
            // New local files inside: the directory stays, and comes back on the server.
            outcome.pushes += done.notEmpty.map(\.entry.path)
            // Left to the next start: shown, not retried (a retry could only clear the error).
            for (left, error) in done.unresolved { outcome.errors.append((left.entry.path, error)) }
            guard done.planAgain.isEmpty else {
                throw DaemonError(.changedMeanwhile, "changed while its delete was applied", path: entry.path)
            }
            return
        }
        // Record first: the events our own removal causes must not be pushed back.
        try index.records.apply(folder: folder, Self.deleteRecords(entry), ifBase: before.base, at: entry.path)
        // (A `catch … where` on this typed throw hangs the Swift 6.3 optimizer: keep it a plain catch.)
        do {
            try materializer.moveToTrash(entry.path, kind: kind, stamp: stamp, expected: expected)
        } catch {
            if error.code == .changedMeanwhile {
                // Written since it was planned: put the records back and plan again (an edit
                // beats the delete).
                try index.records.restore(
                    folder: folder, path: entry.path, local: before.local, base: before.base, onlyOver: entry.baseRecord)
                throw error
            }
            guard error.code == .notEmpty else { throw error }
            // New local files inside: the directory stays, and comes back on the server.
            outcome.pushes.append(entry.path)
        }
    }

    /// Keeps the local version next to the path as a conflict copy (pushed
    /// too), then puts the remote version at the path.
    func resolveConflict(
        _ entry: WireEntry, localHash: String, device: String, at now: Date = Date(), into outcome: inout Outcome
    ) async throws {
        let copy = try keepAsConflictCopy(entry.path, device: device, at: now)
        outcome.pushes.append(copy)
        outcome.conflicts += 1
        try index.conflicts.record(
            folder: folder, path: copy, remoteRev: entry.rev, localHash: localHash, remoteHash: entry.contentHash)
        try await EntryDownload(applier: self).apply(entry, expected: nil, plannedBase: try index.base.record(folder: folder, path: entry.path))
    }

    /// Renames the local version at `path` to the first conflict-copy name not taken: a
    /// second conflict of the path within the same second found the first copy's name taken,
    /// failed with "File exists", and the remote change waited for its retry (seed 4040986932).
    private func keepAsConflictCopy(_ path: String, device: String, at now: Date) throws(DaemonError) -> String {
        var attempt = 1
        while true {
            let copy = ConflictName.make(for: path, device: device, at: now, attempt: attempt)
            do {
                try materializer.rename(path, to: copy)
                return copy
            } catch {
                guard error.errnoValue == EEXIST, attempt < ConflictName.attempts else { throw error }
                attempt += 1
            }
        }
    }
}
