import Foundation
import Glibc
import Logging
import SyncClient
import SyncCore

/// Pushes a batch of paths: read and hash them, ask once which chunks the
/// server lacks, send those (in batch requests, several in parallel),
/// then commit every change in one request. The first two steps (`stage`) and the
/// commit may run apart: the bulk lane stages its next batch while one commits.
struct Uploader: Sendable {
    let folder: String
    let index: IndexStore
    let remote: RemoteClient
    let preparer: Preparer
    let progress: TransferProgress
    /// Files a writer still has open: left to the writer's close (see `OpenWrites`).
    let openWrites: OpenWrites
    let maxConcurrent: Int
    let logger: Logger
    /// Files committed and chunk bytes sent are counted here.
    var metrics = DaemonMetrics()
    /// Small chunks go in batch requests of up to this many bytes.
    let batchBytes = 8 << 20
    /// Bytes of small files a batch keeps in memory between hashing and upload; past it they
    /// are read again when sent (2,000 photos of 3 MiB must not sit in memory, two batches
    /// of them while one commits and the next is staged).
    var memoryBudget = 32 << 20
    /// A seam for tests: runs once the paths of a batch are prepared (a download landing, or
    /// failing to, between the preparations and what is checked after them).
    var afterPreparing: (@Sendable () -> Void)?

    var outboxReplayer: OutboxReplayer { OutboxReplayer(folder: folder, remote: remote, logger: logger) }

    var chunkSender: ChunkSender {
        ChunkSender(
            folder: folder, remote: remote, progress: progress, maxConcurrent: maxConcurrent, batchBytes: batchBytes,
            metrics: metrics)
    }

    /// `mayDelete` is asked before tombstones are sent (the delete-wave guard).
    func push(_ ops: [JournalOp], mayDelete: @Sendable (Int) async -> Bool = { _ in true }) async -> PushBatchResult {
        await commit(stage(ops), mayDelete: mayDelete)
    }

    /// Steps 1 and 2 of a push: reads and hashes the paths, and sends the chunks the server
    /// lacks. Nothing is committed: `commit(_:mayDelete:)` does that, possibly after another
    /// batch's commit landed (see `StagedPush`).
    func stage(_ ops: [JournalOp]) async -> StagedPush {
        var staged = StagedPush()
        // Mid-write: the writer's close (or quiet time) journals the path again.
        let writing = Set(ops.map(\.path).filter {
            openWrites.isRecentlyOpen($0, window: SettleTimes.longestSettle.timeInterval)
        })
        for path in writing { staged.result.finish(path, .unchanged) }
        let paths = ops.map(\.path).filter { !writing.contains($0) }
        let records: (local: [String: LocalRecord], base: [String: BaseRecord])
        do {
            records = try index.records.read(folder: folder, paths: paths)
        } catch {
            for p in paths {
                staged.result.settle(p, .failed(DaemonError(.index, "the index could not be read: \(error)", path: p, underlying: error)))
            }
            return staged
        }
        // 1. Read and hash.
        var replaced: [String] = []
        for (path, preparation, below) in await prepareAll(paths, records: records) {
            if Self.isReplacedDirectory(path, recorded: records.local[path], preparation: preparation) { replaced.append(path) }
            staged.inputs[path] = StagedPush.Inputs(local: records.local[path], base: records.base[path], liveBelow: below)
            switch preparation {
            case .change(let list):
                staged.changes[path] = list
                if let file = list.first(where: \.hardLinked)?.local { staged.linked[path] = file }
            case .unchanged(let local, let removeUnder, let hardLinked):
                if let local { staged.result.update.locals.append(local) }
                if hardLinked, let local { staged.linked[path] = local }
                if let removeUnder { staged.result.update.removedLocals.append(removeUnder) }
                // Written when the batch is recorded: only if no download landed here meanwhile.
                if local != nil || removeUnder != nil { staged.result.update.preparedOver[path] = records.base[path]?.rev ?? 0 }
                staged.result.finish(path, .unchanged)
            case .unstable: staged.result.settle(path, .unstable)
            case .failed(let error): staged.result.settle(path, .failed(error))
            }
        }
        if !replaced.isEmpty { await lookBelow(replacedDirectories: replaced.sorted(), of: &staged) }
        afterPreparing?()
        setAsideMeetingDownloads(&staged, ops: ops)
        setAsideMeetingDeletes(&staged)
        // A vanished directory's tombstones may repeat paths that have ops of their own:
        // each change is sent once, by its own op where there is one; an op left with
        // nothing to send shares the fate of the op that sends its change.
        staged.followers = Self.deduplicate(&staged.changes)
        // 2. Send what the server lacks.
        guard !staged.changes.isEmpty else { return staged }
        do {
            let unreadable = try await chunkSender.send(staged.changes)
            for path in unreadable {
                staged.changes[path] = nil
                staged.result.settle(path, .unstable)
            }
        } catch {
            markTransientOrFailed(error, paths: Array(staged.changes.keys), into: &staged.result)
            staged.changes = [:]
        }
        return staged
    }

    /// Step 3: commits what `stage` left to send, all at once, once the delete-wave guard
    /// (`mayDelete`) has judged its deletes: they count only when they are about to go.
    func commit(_ staged: StagedPush, mayDelete: @Sendable (Int) async -> Bool) async -> PushBatchResult {
        var staged = staged
        await holdDeletes(&staged, mayDelete: mayDelete)
        var result = staged.result
        if !staged.changes.isEmpty { await commit(staged.changes, into: &result) }
        result.inherit(staged.followers)
        lookAtOtherNames(of: staged.linked, into: &result)
        return result
    }

    /// Sends back the staged ops whose index rows changed since they were prepared (another
    /// batch's commit landed meanwhile). An index that cannot be read sends them all back.
    /// Returns the ops sent back.
    @discardableResult
    func setAsideStale(_ staged: inout StagedPush) async -> Set<String> {
        let stale: Set<String>
        do {
            stale = StagedPush.stale(staged.inputs, now: try currentInputs(staged.paths, as: staged.inputs))
        } catch {
            logger.error("index read failed; the staged batch goes round again", metadata: ["error": "\(error)"])
            stale = Set(staged.paths)
        }
        await setAside(stale, of: &staged)
        return stale
    }

    /// What preparing `paths` would read from the index now (the live entries below a path
    /// only where `read` has them).
    private func currentInputs(_ paths: [String], as read: [String: StagedPush.Inputs]) throws -> [String: StagedPush.Inputs] {
        var now: [String: StagedPush.Inputs] = [:]
        let records = try index.records.read(folder: folder, paths: paths)
        let live = try index.base.live(folder: folder, under: paths.filter { read[$0]?.liveBelow != nil })
        for path in paths {
            let below = live[path].map(StagedPush.Inputs.ordered)
            now[path] = StagedPush.Inputs(local: records.local[path], base: records.base[path], liveBelow: below)
        }
        return now
    }

    /// Ops whose tombstones meet a download landing (`StagedPush.meetingDownloads`) are looked
    /// at again shortly (`.landing`), once the download is in place. In this order, after the
    /// preparations: the intents (a download whose rows they read and which has not landed
    /// yet still has one), the rows (a download whose rename failed put its rows back and
    /// dropped its intent together: the tombstones were read from rows no longer there), the
    /// disk (a download drops its intent only once renamed into place).
    private func setAsideMeetingDownloads(_ staged: inout StagedPush, ops: [JournalOp]) {
        let deleting = staged.changes.filter { $0.value.contains(where: \.change.deleted) }.keys
        guard !deleting.isEmpty else { return }
        // After `landingPatience` tries an op no longer waits for an intent: one left by a
        // landing whose last record failed stays until the next start looks at it.
        let patient = Set(ops.filter { $0.attempts < Self.landingPatience }.map(\.path))
        var meeting: Set<String>
        do {
            let landing = Set(try index.records.intents.staged(folder: folder).map(\.path))
            let inputs = staged.inputs.filter { deleting.contains($0.key) }
            let root = preparer.folder
            meeting = StagedPush.meetingDownloads(staged.changes, landing: landing, patient: patient) { path in
                if case .found = root.lstat(path) { return true }
                return false
            }
            meeting.formUnion(StagedPush.stale(inputs, now: try currentInputs(Array(inputs.keys), as: inputs)))
        } catch {
            logger.error(
                "cannot read the downloads landing; deletes wait", metadata: ["folder": "\(folder)", "error": "\(error)"])
            meeting = Set(deleting).intersection(patient)
        }
        for path in meeting {
            logger.trace("push waits for a download landing", metadata: ["path": "\(path)"])
            staged.changes[path] = nil
            staged.result.settle(path, .landing)
        }
    }

    /// Ops sending a file at a path a remote delete is removing (`StagedPush.meetingDeletes`)
    /// are looked at again shortly (`.landing`), once the file is in the trash. The intents
    /// are read after the preparations, then the disk (a delete drops its intent only once
    /// its move to the trash is durable).
    private func setAsideMeetingDeletes(_ staged: inout StagedPush) {
        let overTombstones = Set(staged.inputs.compactMap { path, read in
            read.local == nil && read.base?.deleted == true && staged.changes[path] != nil ? path : nil
        })
        guard !overTombstones.isEmpty else { return }
        var meeting: Set<String>
        do {
            let removing = try index.records.deleteIntents.removing(folder: folder)
            let root = preparer.folder
            meeting = StagedPush.meetingDeletes(staged.changes, overTombstones: overTombstones, removing: removing) {
                guard case .found(let stat) = root.lstat($0) else { return nil }
                return stat
            }
        } catch {
            logger.error("cannot read the remote deletes under way; pushes over them wait", metadata: ["folder": "\(folder)", "error": "\(error)"])
            meeting = overTombstones
        }
        for path in meeting {
            logger.trace("push waits for a remote delete", metadata: ["path": "\(path)"])
            staged.changes[path] = nil
            staged.result.settle(path, .landing)
        }
    }

    /// Tries (0.2 s apart) an op waits for a download landing at one of its tombstones; past
    /// them, an op still waiting on a remote change (a delete's intent) is looked at every 5 s.
    static let landingPatience = 25

    /// `StagedPush.setAside`, and the ops' upload progress ends (they are not sent now).
    func setAside(_ paths: Set<String>, of staged: inout StagedPush) async {
        guard !paths.isEmpty else { return }
        staged.setAside(paths)
        await progress.end(paths: paths)
    }

    /// The delete-wave guard: the deletes a batch would send, unless the wave holds them.
    private func holdDeletes(_ staged: inout StagedPush, mayDelete: @Sendable (Int) async -> Bool) async {
        // Files whose content lives on elsewhere (moves, renames) are not lost: they do not count.
        let arriving = Set(staged.changes.values.flatMap { $0.filter { !$0.change.deleted }.map(\.change.contentHash) })
        let tombstones = staged.changes.values.flatMap { $0.filter { $0.change.deleted && $0.change.kind == .file } }.map(\.change)
            .filter { !arriving.contains($0.contentHash) }
        let deletes: Int
        do { deletes = try index.base.countLost(folder: folder, tombstones) } catch { deletes = tombstones.count }
        guard deletes > 0, await !mayDelete(deletes) else { return }
        var held: [String] = []
        for (owner, list) in staged.changes where list.contains(where: \.change.deleted) {
            staged.changes[owner] = nil
            staged.result.settle(owner, .held)
            held.append(owner)
        }
        await progress.end(paths: held)
    }

    /// Keeps every change in exactly one list, its own path's op first; returns
    /// the ops left with nothing to send, each with the op that sends its change.
    static func deduplicate(_ changes: inout [String: [PreparedChange]]) -> [String: String] {
        var carrier: [String: String] = [:]
        for (owner, list) in changes where list.contains(where: { $0.change.path == owner }) { carrier[owner] = owner }
        let firstChange = changes.compactMapValues { $0.first?.change.path }
        for owner in changes.keys.sorted() {
            changes[owner] = changes[owner]?.filter { prepared in
                if let sender = carrier[prepared.change.path] { return sender == owner }
                carrier[prepared.change.path] = owner
                return true
            }
        }
        var followers: [String: String] = [:]
        for (owner, list) in changes where list.isEmpty {
            changes[owner] = nil
            followers[owner] = firstChange[owner].flatMap { carrier[$0] } ?? owner
        }
        return followers
    }

    /// Prepares `paths` on up to four cores; with each, what it read of the live entries
    /// below it, when it asked.
    private func prepareAll(_ paths: [String], records: (local: [String: LocalRecord], base: [String: BaseRecord])) async
        -> [(String, Preparation, [BaseRecord]?)]
    {
        let width = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
        let slices = stride(from: 0, to: paths.count, by: max(1, paths.count / width + 1)).map {
            Array(paths[$0..<min($0 + paths.count / width + 1, paths.count)])
        }
        let budget = memoryBudget / max(1, slices.count)
        return await withTaskGroup(of: [(String, Preparation, [BaseRecord]?)].self) { group in
            for slice in slices {
                group.addTask { [preparer, index, folder] in
                    var kept = 0
                    return slice.map { path in
                        let preparation: Preparation
                        var below: [BaseRecord]?
                        do {
                            preparation = try preparer.prepare(
                                path: path, local: records.local[path], base: records.base[path], keepBytes: kept < budget,
                                liveBelow: {
                                    let live = try index.base.live(folder: folder, under: path)
                                    below = StagedPush.Inputs.ordered(live)
                                    return live
                                })
                        } catch {
                            preparation = .failed(
                                DaemonError(.index, "the index could not be read: \(error)", path: path, underlying: error))
                        }
                        kept += preparation.bytesKept
                        return (path, preparation, below)
                    }
                }
            }
            var all: [(String, Preparation, [BaseRecord]?)] = []
            for await part in group { all.append(contentsOf: part) }
            return all
        }
    }

    func markTransientOrFailed(_ error: RemoteError, paths: [String], into result: inout PushBatchResult) {
        if error.kind == .transient {
            for p in paths { result.settle(p, .transient) }
            result.transientError = error
        } else if error.status == 403 {
            // The server does not grant this device the folder, found by a push before the
            // feed's first ask said so: the ops wait for a grant (tried again with the
            // backoff, and held by the send gate once the feed knows), not failed for good.
            for p in paths { result.settle(p, .failed(DaemonError(.notGranted, error.message, path: p, underlying: error))) }
        } else {
            for p in paths { result.settle(p, .failed(DaemonError(.rejected, error.message, path: p, underlying: error))) }
        }
    }
}
