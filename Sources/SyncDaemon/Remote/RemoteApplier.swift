import Foundation
import GRDB
import Logging
import SyncClient
import SyncCore

/// Applies a page of the remote change feed to the folder: plans each entry
/// (local × base × remote) and carries the plan out.
struct RemoteApplier: Sendable {
    let folder: String
    let index: IndexStore
    let remote: RemoteClient
    let materializer: Materializer
    let progress: TransferProgress
    let logger: Logger
    /// Files written and chunk bytes fetched are counted here.
    var metrics = DaemonMetrics()
    /// Chunk requests in flight at once (`max_concurrent`).
    var fetchConcurrency = 4

    var chunkFetcher: ChunkFetcher { ChunkFetcher(remote: remote, folder: folder, maxConcurrent: fetchConcurrency) }
    /// Downloads being renamed into place whose events the engine drops.
    let echoes = DownloadEchoes()
    /// Big downloads cut short by the server, kept for their next try.
    let partials = PartialDownloads()
    /// Paths `syncctl restore` committed here: their entries are no push's echo.
    let restores = RestoresUnderWay()
    /// Writes a file's bytes (beside its target, then renamed into place).
    var assembler: FileAssembler {
        FileAssembler(
            materializer: materializer, partials: partials,
            checkpoints: DownloadCheckpoints(store: index.partialDownloads, folder: folder, logger: logger))
    }

    struct Outcome: Sendable {
        /// Local paths to push (conflict copies, local edits that beat remote deletes).
        var pushes: [String] = []
        var errors: [(path: String, error: DaemonError)] = []
        /// Entries that could not be applied now and may be later (kept for a retry).
        var failed: [(entry: WireEntry, error: DaemonError)] = []
        /// Entries applied (or found already applied, or skipped by rule), by path and rev.
        var applied: [(path: String, rev: Int64)] = []
        var conflicts = 0
        /// The server could not be reached for some entry: apply the page again later.
        var retryLater: RemoteError?

        /// Adds what another part of the page's application found (a batch placed beside it).
        mutating func merge(_ other: Outcome) {
            pushes += other.pushes
            errors += other.errors
            failed += other.failed
            applied += other.applied
            conflicts += other.conflicts
            if let error = other.retryLater { retryLater = error }
        }
    }

    /// The base records of the entries' paths, read together: an entry whose base is as new
    /// (this device's own commit, mostly) was seen already (`apply` takes them). If they
    /// cannot be read, none is (each entry is then looked at as usual).
    func seenBases(of entries: [WireEntry]) -> [String: BaseRecord] {
        do {
            return try index.records.bases(folder: folder, paths: entries.map(\.path))
        } catch {
            logger.warning("cannot read base records of a feed page", metadata: ["error": "\(error)"])
            return [:]
        }
    }

    /// Whether this device's base of the entry's path is as new as the entry: seen already.
    static func wasSeen(_ entry: WireEntry, in seen: [String: BaseRecord]) -> Bool {
        seen[entry.path].map { $0.rev >= entry.rev } ?? false
    }

    /// `seen`: `seenBases(of: entries)`. `ownDeviceId`: entries this device committed whose
    /// push is still being recorded are its own echo; the uploader records them. Entries a
    /// move made are always planned: the push that made them records only the move.
    func apply(
        _ entries: [WireEntry], seen: [String: BaseRecord], device: String, ownDeviceId: String?,
        skip: @escaping @Sendable (String, Bool) -> Bool
    ) async -> Outcome {
        var outcome = Outcome()
        partials.giveUp(supersededBy: entries, in: materializer.folder)
        var valid: [WireEntry] = []
        // Entries this device has seen already (its own commits, mostly) are done without
        // looking at the disk: the planner says `nothing` to them whatever is there.
        // This device's own entries (not those a server-side move made: no push of that path
        // records them) whose push is still queued or being recorded, looked up together.
        // If the journal cannot be read, each of them fails as its own look would have.
        let own = entries.filter { entry in
            guard let ownDeviceId, entry.device == ownDeviceId, entry.movedFrom == nil, entry.movedTo == nil else { return false }
            return !Self.wasSeen(entry, in: seen)
        }
        let ownPending = Result { try index.journal.pendingPushes(folder: folder, among: own.map(\.path)) }
        for entry in entries {
            do {
                _ = try RelativePath(validating: entry.path)
                if skip(entry.path, entry.kind == .directory) {
                    outcome.applied.append((entry.path, entry.rev))
                    continue
                }
                if Self.wasSeen(entry, in: seen) {
                    outcome.applied.append((entry.path, entry.rev))
                    continue
                }
                if let ownDeviceId, entry.device == ownDeviceId, entry.movedFrom == nil, entry.movedTo == nil,
                    !restores.covers(entry.path, rev: entry.rev), try ownPending.get().contains(entry.path)
                {
                    outcome.applied.append((entry.path, entry.rev))
                    continue
                }
                valid.append(entry)
            } catch {
                outcome.errors.append(
                    (entry.path, DaemonError(.invalidPath, "refused a remote entry: \(error)", path: entry.path, underlying: error)))
            }
        }
        // Parents before children when creating; children before parents when deleting.
        let live = valid.filter { !$0.deleted }.sorted { $0.path < $1.path }
        let gone = valid.filter(\.deleted).sorted { $0.path > $1.path }
        let stamp = Trash.stamp()
        let tombstones = Dictionary(gone.map { ($0.path, $0) }, uniquingKeysWith: { _, last in last })
        // (The base records read above: without them no move is recognized, and the entries
        // are applied as copies and deletes.)
        let moves = MovePairing.pairs(live: live, tombstones: gone) { path in
            seen[path].flatMap { $0.deleted ? nil : $0.contentHash }
        }
        var renamedAway = Set<String>()
        // Entries applied by a directory move renamed whole (`moveDirectoryWhole`).
        let page = PageEntries(valid)
        var movedWhole = Set<String>()
        // Small new files gathered into batches, in page order: a batch is applied (after the
        // next one's chunks are on their way, `BatchPipeline`) before the next entry that
        // cannot join it, unless that is a new directory (which may pass any batch waiting).
        var batch = PendingBatch()
        var batches = BatchPipeline(applier: self, device: device, stamp: stamp)
        // Files renamed for moves, recorded together before anything else is applied.
        var renames = PendingRenames()
        // Departures of renames whose barrier or record failed: kept for a retry with their arrivals.
        var heldBack = Set<String>()
        // Files and directories removed for deletes, applied together before anything else is.
        var deletes = PendingDeletes()
        for entry in Self.order(live: live, gone: gone, moveSources: Set(moves.values)) {
            let renamable = !entry.deleted && moves[entry.path] != nil
            if !renamable { recordRenames(&renames, renamedAway: &renamedAway, heldBack: &heldBack, into: &outcome) }
            let deletable = entry.deleted && PendingDeletes.kinds.contains(entry.kind) && !renamedAway.contains(entry.path)
                && !heldBack.contains(entry.path) && !movedWhole.contains(entry.path)
            if !deletable { await recordDeletes(&deletes, device: device, stamp: stamp, into: &outcome) }
            if movedWhole.contains(entry.path) {
                outcome.applied.append((entry.path, entry.rev))
                continue
            }
            if !entry.deleted, entry.kind == .directory, entry.movedFrom != nil,
                let applied = moveDirectoryWhole(entry, page: page, skip: skip, into: &outcome)
            {
                movedWhole.formUnion(applied.map(\.path))
                outcome.applied.append((entry.path, entry.rev))
                continue
            }
            if BatchDownload.batchable(entry, moves: moves) {
                batch.add(entry)
                if batch.isFull { await batches.add(batch.take(), into: &outcome) }
                continue
            }
            if !PendingBatch.mayPass(entry, moves: moves) {
                await batches.add(batch.take(), into: &outcome)
                await batches.flush(into: &outcome)
            }
            if deletable {
                do {
                    if let delete = try planDelete(entry) {
                        deletes.add(delete)
                        if deletes.isFull { await recordDeletes(&deletes, device: device, stamp: stamp, into: &outcome) }
                        continue
                    }
                } catch {
                    logger.debug("a remote delete goes one by one", metadata: ["path": "\(entry.path)", "error": "\(error)"])
                }
                // (Planned again one by one, after the run before it.)
                await recordDeletes(&deletes, device: device, stamp: stamp, into: &outcome)
            }
            if entry.deleted && heldBack.contains(entry.path) { continue }
            if entry.deleted && renamedAway.contains(entry.path) {
                outcome.applied.append((entry.path, entry.rev))
                continue
            }
            if !entry.deleted, let old = moves[entry.path] {
                // A server-side move's tombstone may come in a later page: stand in for it
                // with one at the arrival's rev (the real one, later, then finds it done).
                let tombstone = tombstones[old] ?? entry.departure(from: old)
                // A chain (p2 → p1 after p1 → p0) is planned against the records of the rename before it.
                if renames.touches(entry.path) || renames.touches(old) {
                    recordRenames(&renames, renamedAway: &renamedAway, heldBack: &heldBack, into: &outcome)
                }
                do {
                    if try renameLocal(from: tombstone, to: entry, into: &renames) {
                        renamedAway.insert(old)
                        if renames.isFull { recordRenames(&renames, renamedAway: &renamedAway, heldBack: &heldBack, into: &outcome) }
                        continue
                    }
                } catch {
                    logger.debug("rename for a remote move failed; copying instead", metadata: ["path": "\(entry.path)", "error": "\(error)"])
                }
                // (A copy may take its bytes from a file renamed before: recorded first.)
                recordRenames(&renames, renamedAway: &renamedAway, heldBack: &heldBack, into: &outcome)
            }
            await applyOne(entry, device: device, stamp: stamp, into: &outcome)
        }
        recordRenames(&renames, renamedAway: &renamedAway, heldBack: &heldBack, into: &outcome)
        await recordDeletes(&deletes, device: device, stamp: stamp, into: &outcome)
        await batches.add(batch.take(), into: &outcome)
        await batches.flush(into: &outcome)
        return outcome
    }

    /// Applies one entry the one-by-one way and notes how it went.
    func applyOne(_ entry: WireEntry, device: String, stamp: String, into outcome: inout Outcome) async {
        switch await applyRetrying(entry, device: device, stamp: stamp, into: &outcome) {
        case .applied:
            outcome.applied.append((entry.path, entry.rev))
        case .failed(let error):
            outcome.errors.append((entry.path, error))
            outcome.failed.append((entry, error))
            logger.warning("cannot apply remote change", metadata: ["path": "\(entry.path)", "error": "\(error)"])
        case .later:
            break
        }
    }

    /// Parents before children when creating, children before parents when deleting;
    /// and what was below a directory that became a file or symlink is removed before
    /// that file or symlink arrives (unless it moved away: its arrival renames it).
    static func order(live: [WireEntry], gone: [WireEntry], moveSources: Set<String>) -> [WireEntry] {
        let replaced = Set(live.filter { $0.kind != .directory }.map(\.path))
        guard !replaced.isEmpty else { return live + gone }
        func isBelowReplaced(_ path: String) -> Bool { RelativePath.ancestors(of: path).contains(where: replaced.contains) }
        let first = gone.filter { isBelowReplaced($0.path) && !moveSources.contains($0.path) }
        guard !first.isEmpty else { return live + gone }
        let firstPaths = Set(first.map(\.path))
        return first + live + gone.filter { !firstPaths.contains($0.path) }
    }

    enum EntryResult { case applied, failed(DaemonError), later }

    /// Applies one entry; if the user got in between planning and writing, plans
    /// once more with what is there now.
    private func applyRetrying(_ entry: WireEntry, device: String, stamp: String, into outcome: inout Outcome) async
        -> EntryResult
    {
        var last = DaemonError(.changedMeanwhile, "changed meanwhile", path: entry.path)
        for attempt in 0..<2 {
            do {
                try await apply(entry, device: device, stamp: stamp, into: &outcome)
                return .applied
            } catch let error as DaemonError where error.code == .changedMeanwhile && attempt == 0 {
                last = error
                continue
            } catch let error as RemoteError where error.kind == .transient {
                outcome.retryLater = error
                return .later
            } catch {
                return .failed(Self.problem(error, path: entry.path))
            }
        }
        return .failed(last)
    }

    /// What is shown for a path that could not be written: a full disk says so.
    static func problem(_ error: any Error, path: String?) -> DaemonError {
        let full: Bool
        switch error {
        case let error as DaemonError: full = error.isDiskFull
        case let error as DatabaseError: full = error.resultCode == .SQLITE_FULL
        default: full = false
        }
        if full { return DaemonError(.diskFull, "disk full: \(error); retried until space is free", path: path, underlying: error) }
        switch error {
        case let error as DaemonError: return error
        case let error as RemoteError: return DaemonError(.server, error.description, path: path, underlying: error)
        case let error as DatabaseError: return DaemonError(.index, "the index: \(error)", path: path, underlying: error)
        default: return DaemonError(.io, "\(error)", path: path, underlying: error)
        }
    }

    private func apply(_ entry: WireEntry, device: String, stamp: String, into outcome: inout Outcome) async throws {
        let path = entry.path
        let records = try index.records.read(folder: folder, paths: [path])
        let base = records.base[path]
        let (view, stat) = try materializer.inspect(path, record: records.local[path])
        let plan = Planner.plan(local: view, base: base, remote: entry)
        logger.trace(
            "remote entry planned",
            metadata: [
                "path": "\(path)", "rev": "\(entry.rev)", "deleted": "\(entry.deleted)", "hash": "\(entry.contentHash.prefix(12))",
                "base_rev": "\(base.map { "\($0.rev)" } ?? "-")", "local": "\(view.contentHash?.prefix(12) ?? "-")", "plan": "\(plan)",
            ])
        switch plan {
        case .nothing:
            return
        case .adopt:
            var update = IndexUpdate()
            update.bases.append(entry.baseRecord)
            if let stat, !entry.deleted {
                update.locals.append(entry.localRecord(stat: stat, keepingLengthsOf: records.local[path]))
            }
            if entry.deleted { update.removedLocals.append(path) }
            // Only over the base it was planned against: a push may have recorded a newer
            // revision of this path meanwhile, which a stale entry must not replace.
            try index.records.apply(folder: folder, update, ifBase: base, at: path)
        case .download:
            let room = try materializer.makeRoom(at: path, for: entry.kind, expected: stat, stamp: stamp)
            try await EntryDownload(applier: self).apply(entry, expected: room, plannedBase: base)
        case .setMode:
            guard let stat else { throw DaemonError(.changedMeanwhile, "gone meanwhile", path: path) }
            var update = IndexUpdate()
            update.bases.append(entry.baseRecord)
            update.locals.append(entry.localRecord(stat: try materializer.setMode(path, mode: entry.mode, expected: stat)))
            try index.records.apply(folder: folder, update, ifBase: base, at: path)
        case .deleteLocal:
            try deleteLocal(
                entry, kind: view.kind ?? entry.kind, expected: stat, before: (records.local[path], base), stamp: stamp,
                into: &outcome)
        case .keepLocalEdit:
            // Commit the local version on top of the tombstone.
            var update = IndexUpdate()
            update.bases.append(entry.baseRecord)
            try index.records.apply(folder: folder, update, ifBase: base, at: path)
            outcome.pushes.append(path)
        case .conflict:
            try await resolveConflict(entry, localHash: view.contentHash ?? "", device: device, into: &outcome)
        }
    }
}
