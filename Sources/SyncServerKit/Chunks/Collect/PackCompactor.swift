import Logging
import SyncCore

/// Carries out a `CompactionPlan` (decision 0012). A rewrite reads the pack's live records
/// from the blob store (ranged reads), checks each against its hash, appends them through
/// the pack writer in batches of at most `batchBytes` (one `pwrite` + `fdatasync` each, the
/// writer's lock held only for that), then moves all the pack's rows to the copies in one
/// transaction that also retires the pack, and only then deletes it from the blob store and
/// forgets it. A pack holding a damaged chunk is left as it is (the operator runs
/// `storage check`); the copies already made are garbage for a later round.
struct PackCompactor {
    let store: ChunkStore
    let logger: Logger
    var batchBytes = 8 << 20

    struct Outcome: Sendable, Equatable {
        var rewritten = 0
        var deleted = 0
        /// Packs left alone because a live chunk in them is damaged.
        var skipped = 0
        var chunksMoved = 0
        var bytesCopied: Int64 = 0
        /// The longest single append (the time the pack writer's lock was held for it).
        var longestAppend: Duration = .zero
    }

    func run(_ plan: CompactionPlan) async throws -> Outcome {
        var outcome = Outcome()
        for pack in plan.rewrite {
            if try await rewrite(pack, outcome: &outcome) { outcome.rewritten += 1 } else { outcome.skipped += 1 }
        }
        for pack in plan.delete {
            if try await delete(pack) { outcome.deleted += 1 }
        }
        return outcome
    }

    /// Deletes a pack no row points into; false if a row does (it stays).
    func delete(_ pack: PackID) async throws -> Bool {
        guard try await store.index.retireIfEmpty(pack) else { return false }
        try await remove(pack)
        return true
    }

    private func remove(_ pack: PackID) async throws {
        ServerCrashPoint.reached(.afterMove)
        try await store.blobs.delete(pack: pack)
        ServerCrashPoint.reached(.afterDelete)
        try await store.index.forgetRetired(pack)
    }

    private func rewrite(_ pack: PackID, outcome: inout Outcome) async throws -> Bool {
        let live = try await store.index.chunks(in: pack)
        var moves: [ChunkIndex.Move] = []
        var written: [PackID: Int64] = [:]
        var sealed: [PackID] = []
        var start = 0
        while start < live.count {
            var end = start
            var size = 0
            while end < live.count, end == start || size + PackRecord.headerSize + Int(live[end].location.length) <= batchBytes {
                size += PackRecord.headerSize + Int(live[end].location.length)
                end += 1
            }
            let group = Array(live[start..<end])
            start = end
            guard let batch = try await checkedBatch(group, pack: pack) else { return false }
            let began = ContinuousClock.now
            let appended = try await store.appendDurably(batch, crashPoint: .tornCopy)
            outcome.longestAppend = max(outcome.longestAppend, ContinuousClock.now - began)
            sealed += appended.sealed
            written[appended.locations[0].pack] = appended.durableLength
            for (record, copy) in zip(group, appended.locations) {
                moves.append(ChunkIndex.Move(hash: record.hash, from: record.location, to: copy))
            }
            outcome.bytesCopied += Int64(batch.byteCount)
        }
        ServerCrashPoint.reached(.afterCopy)
        let retired = try await store.index.move(moves, out: pack, written: written, sealed: sealed)
        outcome.chunksMoved += moves.count
        if retired { try await remove(pack) }
        return true
    }

    /// The group's records read from `pack` and checked; nil (logged) if one is damaged.
    private func checkedBatch(_ group: [ScannedRecord], pack: PackID) async throws -> PackBatch? {
        let parts = try await store.blobs.read(pack: pack, ranges: group.map { $0.location.offset..<$0.location.recordEnd })
        let damaged: [String] = try await store.offload {
            zip(group, parts).compactMap { record, bytes in Hashing.sha256Hex(bytes) == record.hash ? nil : record.hash }
        }
        if !damaged.isEmpty {
            logger.error(
                "pack \(store.blobs.name(of: pack)) not compacted: \(damaged.count) live chunk(s) in it do not match their hash (\(damaged.prefix(3).joined(separator: ", "))); run `sync-server storage check`")
            return nil
        }
        var batch = PackBatch()
        for (record, bytes) in zip(group, parts) { bytes.withUnsafeBytes { batch.add(hash: record.hash, bytes: $0) } }
        return batch
    }
}
