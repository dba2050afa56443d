import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// The checksum kept beside each stored chunk, checked when it is served (decision 0028).
@Suite("Chunk checksums")
struct ChunkChecksumTests {
    /// Values from the reference implementation (`xxhash.xxh64_intdigest`, PyPI `xxhash`).
    @Test func xxh64MatchesTheReferenceImplementation() {
        let vectors: [([UInt8], UInt64)] = [
            ([], 0xef46_db37_51d8_e999),
            (Array("a".utf8), 0xd24e_c4f1_a98c_6e5b),
            (Array("abc".utf8), 0x44bc_2cf5_ad77_0999),
            (Array(0..<31), 0xc346_d2b5_9b4d_8ee1),
            (Array(0..<32), 0xcbf5_9c51_16ff_32b4),
            (Array(0..<33), 0x0c53_5d1a_cafb_8ead),
            (Array("0123456789abcdef0123456789abcdefx".utf8), 0x3903_d264_5ffe_a35f),
            (Array(repeating: Array(0...255), count: 3).flatMap { $0 }, 0x8e03_c838_c596_036f),
        ]
        for (bytes, expected) in vectors {
            #expect(bytes.withUnsafeBytes { XXH64.hash($0) } == expected, "\(bytes.count) bytes")
        }
    }

    @Test func anUploadedChunkIsIndexedWithTheChecksumOfItsBytes() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let one = pseudoRandomBytes(count: 5000, seed: 3), two = pseudoRandomBytes(count: 70, seed: 5)
                try await client.putChunk(one, token: token)
                let batch = ChunkBatch.encode([(Make.hash(two), two)])
                #expect(try await client.send(.post, "/v1/folders/docs/chunks/batch", token: token, body: batch).status == .ok)
                for chunk in [one, two] {
                    let location = try await fixture.server.chunks.location(Make.hash(chunk))
                    #expect(location.checksum == ChunkChecksum.of(chunk))
                }
            }
        }
    }

    /// The checksum only speeds the check up: intact bytes behind a wrong checksum are
    /// checked against their hash and served; rotted ones are refused whatever the row says.
    @Test(arguments: [Int64?.none, .some(42)])
    func aChunkWhoseRowHasNoOrAWrongChecksumIsCheckedAgainstItsHash(_ checksum: Int64?) async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let intact = pseudoRandomBytes(count: 3000, seed: 7), rotten = pseudoRandomBytes(count: 3000, seed: 9)
                for chunk in [intact, rotten] {
                    try await client.putChunk(chunk, token: token)
                    try await fixture.server.chunks.setChecksum(Make.hash(chunk), to: checksum)
                    #expect(try await fixture.server.chunks.location(Make.hash(chunk)).checksum == checksum)
                }
                try await fixture.server.chunks.rot(Make.hash(rotten), at: 1500)

                let get = try await client.send(.get, "/v1/folders/docs/chunks/\(Make.hash(intact))", token: token)
                #expect(get.bytes == intact)
                let refused = try await client.send(.get, "/v1/folders/docs/chunks/\(Make.hash(rotten))", token: token)
                #expect(refused.errorCode == "chunk_damaged")
                let fetched = try await client.send(
                    .post, "/v1/folders/docs/chunks/fetch", token: token,
                    json: FetchChunksRequest(hashes: [Make.hash(rotten), Make.hash(intact)]))
                let records = try ChunkBatch.decode(fetched.bytes)
                #expect(records.map(\.hash) == [Make.hash(intact)])
                #expect(records.first.map { Array($0.bytes) } == intact)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func bothIndexesKeepTheChecksumOrItsAbsence(_ kind: StoreKind) async throws {
        try await kind.with { stores in
            let index = try chunkIndex(of: stores[0])
            let with = ChunkLocation(pack: 3, offset: 40, length: 10, checksum: -7_000_000_000_123)
            let without = ChunkLocation(pack: 3, offset: 90, length: 10)
            let hashes = [Make.hash([1]), Make.hash([2])]
            _ = try await index.insert([(hashes[0], with), (hashes[1], without)], pack: 3, durableLength: 100, sealed: false)
            for found in [try await index.locations(of: hashes), try await index.locationsRenewing(hashes, now: 0, grace: 0)] {
                #expect(found[hashes[0]]?.checksum == with.checksum)
                #expect(found[hashes[0]] != nil && found[hashes[1]] != nil)
                #expect(found[hashes[1]]?.checksum == nil)
            }
        }
    }
}

extension ChunkChecksumTests {
    /// Compaction's move gives each row its copy's checksum, over none and over a wrong one.
    @Test(arguments: StoreKind.allCases)
    func bothIndexesGiveAMovedRowTheChecksumOfItsCopy(_ kind: StoreKind) async throws {
        try await kind.with { stores in
            let index = try chunkIndex(of: stores[0])
            let hashes = [Make.hash([3]), Make.hash([4])]
            let old = [ChunkLocation(pack: 3, offset: 40, length: 10), ChunkLocation(pack: 3, offset: 90, length: 10, checksum: 42)]
            _ = try await index.insert(Array(zip(hashes, old)), pack: 3, durableLength: 100, sealed: true)
            let copies = [
                ChunkLocation(pack: 4, offset: 40, length: 10, checksum: 7),
                ChunkLocation(pack: 4, offset: 90, length: 10, checksum: -8),
            ]
            let moves = hashes.indices.map { ChunkIndex.Move(hash: hashes[$0], from: old[$0], to: copies[$0]) }
            #expect(try await index.move(moves, out: 3, written: [4: 100], sealed: [4]), "the emptied pack is retired")
            let found = try await index.locations(of: hashes)
            #expect(found[hashes[0]] == copies[0])
            #expect(found[hashes[1]] == copies[1])
        }
    }
}

extension ChunkStore {
    /// Sets (or clears) the checksum in the chunk's index row, as a row from before checksums
    /// were kept, or a damaged index, would have it.
    func setChecksum(_ hash: String, to checksum: Int64?) async throws {
        let sqlite = try #require(index as? ChunkIndex, "this chunk store is not on SQLite")
        try await sqlite.pool.write { db in
            try db.execute(sql: "UPDATE chunk_index SET checksum = ? WHERE hash = ?", arguments: [checksum, hash])
        }
    }
}
