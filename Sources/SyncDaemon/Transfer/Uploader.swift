import Foundation
import Glibc
import Logging
import SyncClient
import SyncCore

/// Pushes a batch of paths: read and hash them, ask once which chunks the
/// server lacks, send those (small ones batched, large ones in parallel),
/// then commit every change in one request.
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

    var outboxReplayer: OutboxReplayer { OutboxReplayer(folder: folder, remote: remote, logger: logger) }

    var chunkSender: ChunkSender {
        ChunkSender(
            folder: folder, remote: remote, progress: progress, maxConcurrent: maxConcurrent, batchBytes: batchBytes,
            metrics: metrics)
    }

    /// `mayDelete` is asked before tombstones are sent (the delete-wave guard).
    func push(_ ops: [JournalOp], mayDelete: @Sendable (Int) async -> Bool = { _ in true }) async -> PushBatchResult {
        var result = PushBatchResult()
        // Mid-write: the writer's close (or quiet time) journals the path again.
        let writing = Set(ops.map(\.path).filter {
            openWrites.isRecentlyOpen($0, window: SettleTimes.longestSettle.timeInterval)
        })
        for path in writing { result.finish(path, .unchanged) }
        let paths = ops.map(\.path).filter { !writing.contains($0) }
        let records: (local: [String: LocalRecord], base: [String: BaseRecord])
        do {
            records = try index.records.read(folder: folder, paths: paths)
        } catch {
            for p in paths { result.settle(p, .failed(DaemonError(.index, "the index could not be read: \(error)", path: p, underlying: error))) }
            return result
        }
        // 1. Read and hash.
        var changes: [String: [PreparedChange]] = [:]
        for (path, preparation) in await prepareAll(paths, records: records) {
            switch preparation {
            case .change(let list): changes[path] = list
            case .unchanged(let local, let removeUnder):
                if let local { result.update.locals.append(local) }
                if let removeUnder { result.update.removedLocals.append(removeUnder) }
                result.finish(path, .unchanged)
            case .unstable: result.settle(path, .unstable)
            case .failed(let error): result.settle(path, .failed(error))
            }
        }
        // A vanished directory's tombstones may repeat paths that have ops of their own:
        // each change is sent once, by its own op where there is one; an op left with
        // nothing to send shares the fate of the op that sends its change.
        let followers = Self.deduplicate(&changes)
        var sent = await send(changes, result: result, mayDelete: mayDelete)
        sent.inherit(followers)
        return sent
    }

    /// Steps 2 and 3 for the prepared changes (after the delete-wave check).
    private func send(
        _ changes: [String: [PreparedChange]], result: PushBatchResult, mayDelete: @Sendable (Int) async -> Bool
    ) async -> PushBatchResult {
        var changes = changes
        var result = result
        // Files whose content lives on elsewhere (moves, renames) are not lost: they do not count.
        let arriving = Set(changes.values.flatMap { $0.filter { !$0.change.deleted }.map(\.change.contentHash) })
        let tombstones = changes.values.flatMap { $0.filter { $0.change.deleted && $0.change.kind == .file } }.map(\.change)
            .filter { !arriving.contains($0.contentHash) }
        let deletes: Int
        do { deletes = try index.base.countLost(folder: folder, tombstones) } catch { deletes = tombstones.count }
        if deletes > 0, await !mayDelete(deletes) {
            for (owner, list) in changes where list.contains(where: \.change.deleted) {
                changes[owner] = nil
                result.settle(owner, .held)
            }
        }
        guard !changes.isEmpty else { return result }

        // 2. Send what the server lacks.
        do {
            let unreadable = try await chunkSender.send(changes)
            for path in unreadable {
                changes[path] = nil
                result.settle(path, .unstable)
            }
        } catch {
            markTransientOrFailed(error, paths: Array(changes.keys), into: &result)
            return result
        }
        // 3. Commit them all at once.
        await commit(changes, into: &result)
        return result
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

    private func prepareAll(_ paths: [String], records: (local: [String: LocalRecord], base: [String: BaseRecord])) async
        -> [(String, Preparation)]
    {
        let width = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
        let slices = stride(from: 0, to: paths.count, by: max(1, paths.count / width + 1)).map {
            Array(paths[$0..<min($0 + paths.count / width + 1, paths.count)])
        }
        return await withTaskGroup(of: [(String, Preparation)].self) { group in
            for slice in slices {
                group.addTask { [preparer, index, folder] in
                    slice.map { path in
                        let preparation: Preparation
                        do {
                            preparation = try preparer.prepare(
                                path: path, local: records.local[path], base: records.base[path],
                                liveBelow: { try index.base.live(folder: folder, under: path) })
                        } catch {
                            preparation = .failed(
                                DaemonError(.index, "the index could not be read: \(error)", path: path, underlying: error))
                        }
                        return (path, preparation)
                    }
                }
            }
            var all: [(String, Preparation)] = []
            for await part in group { all.append(contentsOf: part) }
            return all
        }
    }

    func markTransientOrFailed(_ error: RemoteError, paths: [String], into result: inout PushBatchResult) {
        if error.kind == .transient {
            for p in paths { result.settle(p, .transient) }
            result.transientError = error
        } else {
            for p in paths { result.settle(p, .failed(DaemonError(.rejected, error.message, path: p, underlying: error))) }
        }
    }
}
