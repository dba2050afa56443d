import Foundation
import GRDB
import HummingbirdTesting
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// Which chunks the collector drops: never one a live entry or a kept version uses, never one
/// inside its grace period (a commit may be on its way), every other one. Time is injected.
@Suite("Chunk garbage collection")
struct ChunkGCTests {
    static func chunk(_ n: UInt64) -> [UInt8] { pseudoRandomBytes(count: 1500, seed: 2 * n + 1) }

    @Test func neverDropsAChunkThatALiveEntryOrAKeptVersionUses() async throws {
        try await Fixture.with { fixture in
            let (a, b, c, unused) = (Self.chunk(1), Self.chunk(2), Self.chunk(3), Self.chunk(4))
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                for chunk in [a, b, c, unused] { try await client.putChunk(chunk, token: token) }
                _ = try await client.commitOK([Make.file("live", chunks: [a]), Make.file("edited", chunks: [b])], token: token)
                // "edited" now holds c; its version holding b is kept for the retention period.
                _ = try await client.commitOK([Make.file("edited", base: 2, chunks: [c])], token: token)
            }
            let report = try await fixture.gc(at: .inDays(2))
            #expect(report.chunksDropped == 1)
            #expect(report.bytesDropped == Int64(unused.count))
            #expect(try await fixture.indexedChunks() == Set([a, b, c].map(Make.hash)))

            // Past the retention period the old version goes, and b with it; the rest stays.
            let later = try await fixture.gc(at: .inDays(31))
            #expect(later.versionsPruned == 1)
            #expect(try await fixture.indexedChunks() == Set([a, c].map(Make.hash)))
        }
    }

    @Test func anUnreferencedChunkIsKeptForItsGracePeriodAndDroppedAfter() async throws {
        try await Fixture.with { fixture in
            let inFlight = Self.chunk(10)
            let stored = try await fixture.server.chunks.store(hash: Make.hash(inFlight), bytes: .init(bytes: inFlight))
            #expect(stored)
            // A commit on its way: uploaded, not committed yet.
            #expect(try await fixture.gc(at: .inHours(23)).chunksDropped == 0)
            #expect(try await fixture.server.chunks.missing([Make.hash(inFlight)]).isEmpty)
            #expect(try await fixture.gc(at: .inHours(25)).chunksDropped == 1)
            #expect(try await fixture.server.chunks.missing([Make.hash(inFlight)]) == [Make.hash(inFlight)])
        }
    }

    @Test func aChunkReportedPresentToAClientStartsANewGracePeriod() async throws {
        try await Fixture.with { fixture in
            let old = Self.chunk(20), aged = Self.chunk(21)
            for chunk in [old, aged] {
                #expect(try await fixture.server.chunks.store(hash: Make.hash(chunk), bytes: .init(bytes: chunk)))
            }
            // Both uploaded 20 h ago; a client is then told one of them is there (dedup).
            let twentyHoursAgo = MetadataStore.nowSeconds() - 20 * 3600
            try await (try fixture.pool).write { db in
                try db.execute(sql: "UPDATE chunk_index SET touched_at = ?", arguments: [twentyHoursAgo])
            }
            #expect(try await fixture.server.chunks.missing([Make.hash(aged)]).isEmpty)
            let report = try await fixture.gc(at: .inHours(12))
            #expect(report.chunksDropped == 1)
            #expect(try await fixture.indexedChunks() == [Make.hash(aged)])
        }
    }

    @Test func aCommitBetweenTheSnapshotAndTheDropKeepsItsChunks() async throws {
        try await Fixture.with { fixture in
            let chunk = Self.chunk(30)
            let hash = Make.hash(chunk)
            #expect(try await fixture.server.chunks.store(hash: hash, bytes: .init(bytes: chunk)))
            let cutoff = MetadataStore.nowSeconds() + 3600
            let pool = (try fixture.pool)
            let candidates = try await pool.read { db in try ChunkGC.candidates(db: db, touchedBefore: cutoff) }
            #expect(candidates.hashes == [hash])
            // A client that was told the chunk is there commits it now.
            let checked = try CommitValidator.check(CommitRequest(changes: [Make.file("late", chunks: [chunk])]))
            let response = try await fixture.server.metadata.commit(
                folder: Fixture.folder, device: fixture.deviceID, changes: checked.changes, idempotency: nil, checkingChunksOf: checked)
            #expect(response?.results.first?.status == .ok)
            let dropped = try await pool.write { db in try ChunkGC.drop(candidates, touchedBefore: cutoff, db: db) }
            #expect(dropped == ChunkGC.Dropped())
            #expect(try await fixture.indexedChunks() == [hash])
        }
    }

    @Test func aCommitAfterTheDropIsToldItsChunksAreMissing() async throws {
        try await Fixture.with { fixture in
            let chunk = Self.chunk(40)
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                try await client.putChunk(chunk, token: token)
                #expect(try await fixture.gc(at: .inDays(2)).chunksDropped == 1)
                let response = try await client.commit([Make.file("late", chunks: [chunk])], token: token)
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "missing_chunks")
                // The client uploads it again, and the commit goes through.
                try await client.putChunk(chunk, token: token)
                _ = try await client.commitOK([Make.file("late", chunks: [chunk])], token: token)
            }
        }
    }
}
