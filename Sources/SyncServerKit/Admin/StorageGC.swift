import Foundation
import Logging

/// One round of reclaiming storage (decision 0012): history older than `retention` is
/// pruned, chunks nothing references any more are dropped from the index once past their
/// grace period (`ChunkGC`), and packs are compacted (`CompactionPlan`, `PackCompactor`).
/// The server runs a round at start and then every `RetentionService.interval`;
/// `sync-server storage gc` runs one while the server is stopped.
public struct StorageGC: Sendable {
    let metadata: any MetadataBackend
    let chunks: ChunkStore
    let retention: Duration
    /// A sealed pack whose live fraction is below this is rewritten.
    let compactBelow: Double
    let logger: Logger

    /// `now` is the time retention and the grace period are judged by.
    func run(now: Date) async throws -> Report {
        let started = ContinuousClock.now
        var report = Report()
        report.packBytesBefore = try await packBytes()
        report.versionsPruned = try await ServerAdmin(metadata: metadata).pruneHistory(retention: retention, now: now)
        let dropped = try await chunks.index.collectGarbage(now: Int64(now.timeIntervalSince1970), grace: ChunkGC.graceSeconds)
        report.chunksDropped = dropped.chunks
        report.bytesDropped = dropped.bytes
        let compacted = try await compact()
        report.packsRewritten = compacted.rewritten
        report.packsDeleted = compacted.deleted
        report.packsSkipped = compacted.skipped
        report.bytesCopied = compacted.bytesCopied
        report.longestAppend = compacted.longestAppend
        // By the real clock, not `now` (which tests move ahead): the bucket dates its objects
        // by the real time, and an upload in flight must never look old.
        report.leftoverObjectsDeleted = try await chunks.sweepLeftoverObjects(now: Date(), grace: ServerClock.leftoverGrace)
        report.packBytesAfter = try await packBytes()
        report.took = ContinuousClock.now - started
        return report
    }

    private func compact() async throws -> PackCompactor.Outcome {
        var usage = try await chunks.index.usage()
        if let current = chunks.writer.currentPack,
            CompactionPlan.sealsCurrent(usage.first { $0.pack == current }, threshold: compactBelow),
            chunks.writer.seal(current)
        {
            try await chunks.seal([current])
            usage = try await chunks.index.usage()
        }
        let plan = CompactionPlan(packs: usage, current: chunks.writer.currentPack, threshold: compactBelow)
        guard !plan.isEmpty else { return PackCompactor.Outcome() }
        return try await PackCompactor(store: chunks, logger: logger).run(plan)
    }

    private func packBytes() async throws -> Int64 {
        try await chunks.blobs.list().values.reduce(0, +)
    }
}
