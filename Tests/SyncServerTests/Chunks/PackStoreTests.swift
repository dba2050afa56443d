import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

@Suite("Pack store")
struct PackStoreTests {
    /// (`pseudoRandomBytes` ignores the lowest bit of its seed: seeds here are odd.)
    static func chunk(_ n: UInt64, size: Int = 1000) -> [UInt8] { pseudoRandomBytes(count: size, seed: 2 * n + 1) }

    func missing(_ hashes: [String], client: some TestClientProtocol, token: String) async throws -> [String] {
        let response = try await client.send(
            .post, "/v1/folders/docs/chunks/missing", token: token, json: MissingChunksRequest(hashes: hashes))
        try #require(response.status == .ok, "\(response.text)")
        return try response.decode(MissingChunksResponse.self).missing
    }

    @Test func packsRotateAndEveryChunkStaysReadable() async throws {
        try await Fixture.with(packRotation: 4096) { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let chunks = (0..<10).map { Self.chunk($0) }
                for chunk in chunks { try await client.putChunk(chunk, token: token) }
                let packs = try fixture.server.chunks.packsOnDisk()
                // 1,040-byte records, sealed before the next would pass 4,096: 3 per pack.
                #expect(packs.count == 4)
                #expect(packs.values.allSatisfy { $0 <= 4096 })
                let sealed = try await (try fixture.pool).read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM packs WHERE sealed = 1")
                }
                #expect(sealed == 3)
                for chunk in chunks {
                    let get = try await client.send(.get, "/v1/folders/docs/chunks/\(Make.hash(chunk))", token: token)
                    #expect(get.status == .ok)
                    #expect(get.bytes == chunk)
                }
            }
        }
    }

    @Test func oneUploadRequestIsOneAppendAndOneSync() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let chunks = (0..<50).map { Self.chunk(100 + $0) }
                let body = ChunkBatch.encode(chunks.map { (Make.hash($0), $0) })
                let response = try await client.send(.post, "/v1/folders/docs/chunks/batch", token: token, body: body)
                #expect(response.status == .ok)
                #expect(fixture.server.chunks.syncCalls == 1)
                #expect(try fixture.server.chunks.packsOnDisk().count == 1)
                #expect(try await missing(chunks.map(Make.hash), client: client, token: token).isEmpty)
            }
        }
    }

    /// A batch's new records are written as they lie in its body, around the ones the server
    /// has: the pack holds each one whole and intact, where the index says.
    @Test func aBatchAroundChunksAlreadyStoredWritesTheOthersIntact() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let chunks = (0..<6).map { Self.chunk(200 + $0) }
                try await client.putChunk(chunks[2], token: token)
                try await client.putChunk(chunks[5], token: token)
                // Duplicates too: the second copies of chunks 0 and 1 are not written again.
                let sent = [chunks[0], chunks[1], chunks[0], chunks[3], chunks[2], chunks[1], chunks[4], chunks[5]]
                let body = ChunkBatch.encode(sent.map { (Make.hash($0), $0) })
                let response = try await client.send(.post, "/v1/folders/docs/chunks/batch", token: token, body: body)
                #expect(response.status == .ok)
                #expect(response.text.contains("\"stored\":4"), "\(response.text)")
                #expect(response.text.contains("\"received\":8"), "\(response.text)")
                for chunk in chunks {
                    let get = try await client.send(.get, "/v1/folders/docs/chunks/\(Make.hash(chunk))", token: token)
                    #expect(get.bytes == chunk)
                }
                for (pack, size) in try fixture.server.chunks.packsOnDisk() {
                    let path = fixture.server.chunks.packPath(pack)
                    let fd = open(path, O_RDONLY)
                    try #require(fd >= 0)
                    defer { close(fd) }
                    let scan = try PackScan.scan(fd: fd, pack: pack, path: path)
                    #expect(scan.damaged == 0 && scan.validEnd == size)
                    for record in scan.records {
                        #expect(try await fixture.server.chunks.location(record.hash).isSamePlace(as: record.location))
                    }
                }
            }
        }
    }

    @Test func existenceChecksReadTheIndexNotTheFiles() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let kept = Self.chunk(1), forgotten = Self.chunk(2)
                try await client.putChunk(kept, token: token)
                try await client.putChunk(forgotten, token: token)
                // The bytes stay in the pack; only the index row goes.
                try await fixture.server.chunks.forget(Make.hash(forgotten))
                let left = try await missing([Make.hash(kept), Make.hash(forgotten)], client: client, token: token)
                #expect(left == [Make.hash(forgotten)])
                let commit = try await client.commit([Make.file("f", chunks: [kept, forgotten])], token: token)
                #expect(commit.status == .badRequest)
                #expect(commit.errorCode == "missing_chunks")
                #expect(commit.text.contains(Make.hash(forgotten)))
                #expect(!commit.text.contains(Make.hash(kept)))
            }
        }
    }

    @Test func rangedGetsReadTheirPartOfAPack() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let first = Self.chunk(7), second = Self.chunk(8, size: 5000)
                try await client.putChunk(first, token: token)
                try await client.putChunk(second, token: token)
                let location = try await fixture.server.chunks.location(Make.hash(second))
                #expect(location.offset == Int64(first.count + 2 * PackRecord.headerSize))
                let uri = "/v1/folders/docs/chunks/\(Make.hash(second))"
                let part = try await client.send(.get, uri, token: token, headers: [.range: "bytes=100-199"])
                #expect(part.status == .partialContent)
                #expect(part.bytes == Array(second[100...199]))
                #expect(part.headers[.contentRange] == "bytes 100-199/5000")
                let tail = try await client.send(.get, uri, token: token, headers: [.range: "bytes=-10"])
                #expect(tail.bytes == Array(second[4990...]))
            }
        }
    }

    @Test func aChunkWithRottedBytesIsNeverServed() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let good = Self.chunk(11), rotten = Self.chunk(12)
                try await client.putChunk(good, token: token)
                try await client.putChunk(rotten, token: token)
                try await fixture.server.chunks.rot(Make.hash(rotten), at: 500)
                let uri = "/v1/folders/docs/chunks/\(Make.hash(rotten))"
                for headers: HTTPFields in [[:], [.range: "bytes=0-99"]] {
                    let get = try await client.send(.get, uri, token: token, headers: headers)
                    #expect(get.status == .internalServerError)
                    #expect(get.errorCode == "chunk_damaged")
                    #expect(get.text.contains(Make.hash(rotten)))
                    #expect(get.text.contains("storage check"))
                }
                let fine = try await client.send(.get, "/v1/folders/docs/chunks/\(Make.hash(good))", token: token)
                #expect(fine.bytes == good)
            }
        }
    }
}
