import Foundation
import GRDB
import HummingbirdTesting
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// Compaction: sparse packs are rewritten, empty ones deleted, and every live chunk stays
/// readable throughout, also for a reader that looked it up before it moved.
@Suite("Pack compaction")
struct CompactionTests {
    static func chunk(_ n: UInt64, size: Int = 2000) -> [UInt8] { pseudoRandomBytes(count: size, seed: 2 * n + 1) }

    /// Uploads `chunks` one request each, commits `keep` as files, and deletes nothing.
    func upload(_ chunks: [[UInt8]], keep: [[UInt8]], fixture: Fixture) async throws {
        try await fixture.server.makeApplication().test(.router) { client in
            let token = try await client.token(fixture.credential)
            for chunk in chunks { try await client.putChunk(chunk, token: token) }
            let files = keep.enumerated().map { Make.file("f\($0.offset)", chunks: [$0.element]) }
            if !files.isEmpty { _ = try await client.commitOK(files, token: token) }
        }
    }

    /// A row indexed before checksums were kept, or with a wrong one, gets the copy's when
    /// compaction copies its chunk (taken from bytes just checked against the hash).
    @Test func aMovedRowGetsTheChecksumOfItsCopy() async throws {
        // As above: packs of chunks 0-2, 3-5, 6-8, and 9 being written; 0-2 and 3-5 keep one
        // chunk each, so both are rewritten.
        try await Fixture.with(packRotation: 6200) { fixture in
            let chunks = (0..<10).map { Self.chunk($0) }
            try await upload(chunks, keep: [chunks[1], chunks[5]], fixture: fixture)
            try await fixture.server.chunks.setChecksum(Make.hash(chunks[1]), to: nil)
            try await fixture.server.chunks.setChecksum(Make.hash(chunks[5]), to: 42)
            let before = try await fixture.server.chunks.location(Make.hash(chunks[1]))
            let report = try await fixture.gc(at: .inDays(2))
            #expect(report.packsRewritten == 2)
            let moved = try await fixture.server.chunks.location(Make.hash(chunks[1]))
            #expect(moved.pack != before.pack)
            #expect(moved.checksum == ChunkChecksum.of(chunks[1]))
            #expect(try await fixture.server.chunks.location(Make.hash(chunks[5])).checksum == ChunkChecksum.of(chunks[5]))
        }
    }

    @Test func sparsePacksAreRewrittenEmptyOnesDeletedAndLiveChunksStayReadable() async throws {
        // 2,040-byte records, three to a pack: packs of chunks 0-2, 3-5, 6-8, and 9 being written.
        try await Fixture.with(packRotation: 6200) { fixture in
            let chunks = (0..<10).map { Self.chunk($0) }
            let kept = [chunks[0], chunks[1], chunks[5], chunks[9]]
            try await upload(chunks, keep: kept, fixture: fixture)
            let before = try fixture.server.chunks.packsOnDisk()
            #expect(before.count == 4)
            let stale = try await fixture.server.chunks.location(Make.hash(chunks[5]))

            let report = try await fixture.gc(at: .inDays(2))
            #expect(report.chunksDropped == 6)
            // 0-2 keeps two of three (kept), 3-5 one (rewritten: its record copied to the pack
            // being written), 6-8 none (deleted); 9 is the pack being written, all live.
            #expect(report.packsRewritten == 1)
            #expect(report.packsDeleted == 1)
            #expect(report.packBytesAfter == report.packBytesBefore - 2 * 6120 + 2040)
            let after = try fixture.server.chunks.packsOnDisk()
            #expect(after[stale.pack] == nil)
            for chunk in kept {
                let at = try await fixture.server.chunks.location(Make.hash(chunk))
                #expect(try await fixture.server.chunks.readChecked(hash: Make.hash(chunk), at: at) == chunk)
            }
            // A reader that looked the chunk up before it moved still gets it.
            #expect(try await fixture.server.chunks.readChecked(hash: Make.hash(chunks[5]), at: stale) == chunks[5])
            #expect(try await StorageCheck.run(dataDir: fixture.dataDir).problems.isEmpty)

            // After a restart everything is still there and nothing collected came back.
            let restarted = try await fixture.reopened(packRotation: 6200)
            #expect(try await restarted.indexedChunks() == Set(kept.map(Make.hash)))
        }
    }

    @Test func aFetchWhosePacksWereCompactedAwayIsAnsweredFromTheCopies() async throws {
        try await Fixture.with(packRotation: 6200) { fixture in
            let chunks = (20..<26).map { Self.chunk($0) }
            try await upload(chunks, keep: [chunks[1], chunks[4]], fixture: fixture)
            let wanted = [chunks[1], chunks[4]].map(Make.hash)
            let looked = try await fixture.server.chunks.index.locations(of: wanted)
            _ = try await fixture.gc(at: .inDays(2))
            #expect(try fixture.server.chunks.packsOnDisk().keys.contains { pack in looked.values.contains { $0.pack == pack } } == false)
            // A fetch that looked its chunks up just before: their packs are gone.
            let stale = try wanted.map { hash in (hash: hash, location: try #require(looked[hash])) }
            let read = try await fixture.server.chunks.readRecords(stale, retry: true)
            #expect(read[wanted[0]]?.bytes == chunks[1])
            #expect(read[wanted[1]]?.bytes == chunks[4])
        }
    }

    @Test func thePackBeingWrittenIsCompactedWhenMostOfItIsGarbage() async throws {
        try await Fixture.with { fixture in
            let chunks = (30..<40).map { Self.chunk($0, size: 4096) }
            try await upload(chunks, keep: [chunks[3]], fixture: fixture)
            let report = try await fixture.gc(at: .inDays(2))
            #expect(report.packsRewritten == 1)
            #expect(try fixture.packBytes() == Int64(PackRecord.headerSize + 4096))
            let at = try await fixture.server.chunks.location(Make.hash(chunks[3]))
            #expect(try await fixture.server.chunks.readChecked(hash: Make.hash(chunks[3]), at: at) == chunks[3])
            // Uploads go on, into the new pack the copy went to.
            let more = Self.chunk(41)
            #expect(try await fixture.server.chunks.store(hash: Make.hash(more), bytes: .init(bytes: more)))
            #expect(try await fixture.server.chunks.location(Make.hash(more)).pack == at.pack)
            #expect(try fixture.server.chunks.packsOnDisk().keys.sorted() == [at.pack])
        }
    }

    @Test func aPackHoldingADamagedLiveChunkIsLeftAsItIs() async throws {
        try await Fixture.with(packRotation: 6200) { fixture in
            let chunks = (50..<56).map { Self.chunk($0) }
            try await upload(chunks, keep: [chunks[0], chunks[3]], fixture: fixture)
            let damaged = try await fixture.server.chunks.location(Make.hash(chunks[0]))
            try await fixture.server.chunks.rot(Make.hash(chunks[0]), at: 7)
            let report = try await fixture.gc(at: .inDays(2))
            #expect(report.packsSkipped == 1)
            #expect(report.packsRewritten == 1)
            #expect(try fixture.server.chunks.packsOnDisk()[damaged.pack] != nil)
            #expect(try await fixture.server.chunks.location(Make.hash(chunks[0])).isSamePlace(as: damaged))
        }
    }

    @Test func collectedChunksInThePackBeingWrittenDoNotComeBackAtRestart() async throws {
        try await Fixture.with { fixture in
            let garbage = Self.chunk(60, size: 1000), live = Self.chunk(61, size: 6000)
            try await upload([garbage, live], keep: [live], fixture: fixture)
            let report = try await fixture.gc(at: .inDays(2))
            // The pack being written is 85 % live: not compacted, the garbage's bytes stay in it.
            #expect(report.chunksDropped == 1 && report.packsRewritten == 0)
            let restarted = try await fixture.reopened()
            #expect(try await restarted.server.chunks.missing([Make.hash(garbage)]) == [Make.hash(garbage)])
            #expect(try await restarted.indexedChunks() == [Make.hash(live)])
        }
    }

    @Test func aRetiredPackLeftByACrashIsDeletedAtStart() async throws {
        try await Fixture.with(packRotation: 6200) { fixture in
            let chunks = (70..<74).map { Self.chunk($0) }
            try await upload(chunks, keep: [chunks[3]], fixture: fixture)
            let first = try await fixture.server.chunks.location(Make.hash(chunks[0])).pack
            // As a compaction killed between retiring the pack and deleting its file leaves it.
            try await (try fixture.pool).write { db in
                try db.execute(sql: "DELETE FROM chunk_index WHERE pack_id = ?", arguments: [first])
                try db.execute(sql: "UPDATE packs SET retired = 1 WHERE id = ?", arguments: [first])
            }
            let restarted = try await fixture.reopened(packRotation: 6200)
            #expect(try restarted.server.chunks.packsOnDisk()[first] == nil)
            #expect(try await restarted.server.chunks.index.usage().contains { $0.pack == first } == false)
            #expect(try await restarted.server.chunks.missing(chunks.map(Make.hash)) == chunks[0..<3].map(Make.hash))
        }
    }

    @Test func nothingIsIndexedIntoARetiredPack() async throws {
        try await Fixture.with { fixture in
            let chunk = Self.chunk(80)
            try await (try fixture.pool).write { db in
                try db.execute(sql: "INSERT INTO packs (id, durable_length, sealed, retired) VALUES (99, 0, 1, 1)")
            }
            let location = ChunkLocation(pack: 99, offset: 40, length: Int64(chunk.count))
            await #expect(throws: PackRetired.self) {
                _ = try await fixture.server.chunks.index.insert([(Make.hash(chunk), location)], pack: 99, durableLength: 2040, sealed: false)
            }
            #expect(try await fixture.indexedChunks().isEmpty)
        }
    }
}
