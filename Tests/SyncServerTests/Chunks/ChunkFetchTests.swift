import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

@Suite("Chunk fetch (many chunks in one response)")
struct ChunkFetchTests {
    @Test func fetchSendsStoredChunksInRequestOrderAndLeavesOutTheRest() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let chunks = (0..<20).map { Make.bytes("small file number \($0)") }
                for chunk in chunks { _ = try await client.putChunk(chunk, token: token) }
                let absent = Make.hash(Make.bytes("never uploaded"))
                // Reversed, with a duplicate and an absent one in the middle.
                var asked = chunks.reversed().map(Make.hash)
                asked.insert(absent, at: 5)
                asked.insert(asked[0], at: 10)
                let response = try await client.send(
                    .post, "/v1/folders/docs/chunks/fetch", token: token, json: FetchChunksRequest(hashes: asked))
                #expect(response.status == .ok)
                let records = try ChunkBatch.decode(response.bytes)
                #expect(records.map(\.hash) == chunks.reversed().map(Make.hash))
                for record in records { #expect(Make.hash(Array(record.bytes)) == record.hash) }
            }
        }
    }

    @Test func aChunkWhoseBytesNoLongerMatchItsHashIsNeverServed() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let good = Make.bytes("good chunk"), rotten = Make.bytes("rotten chunk")
                _ = try await client.putChunk(good, token: token)
                _ = try await client.putChunk(rotten, token: token)
                // Bit rot on the server's disk.
                try await fixture.server.chunks.rot(Make.hash(rotten), at: 11)
                let response = try await client.send(
                    .post, "/v1/folders/docs/chunks/fetch", token: token,
                    json: FetchChunksRequest(hashes: [Make.hash(rotten), Make.hash(good)]))
                #expect(response.status == .ok)
                let records = try ChunkBatch.decode(response.bytes)
                #expect(records.map(\.hash) == [Make.hash(good)])
            }
        }
    }

    @Test func badRequestsAreRefusedWithAReason() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let notHex = try await client.send(
                    .post, "/v1/folders/docs/chunks/fetch", token: token, json: FetchChunksRequest(hashes: ["../etc/passwd"]))
                #expect(notHex.status == .badRequest)
                #expect(notHex.text.contains("not a chunk hash"))
                let tooMany = Array(repeating: Make.hash([1]), count: FetchChunksRequest.maxHashes + 1)
                let big = try await client.send(
                    .post, "/v1/folders/docs/chunks/fetch", token: token, json: FetchChunksRequest(hashes: tooMany))
                #expect(big.status == .badRequest)
                let other = try await client.send(
                    .post, "/v1/folders/secret/chunks/fetch", token: token, json: FetchChunksRequest(hashes: [Make.hash([1])]))
                #expect(other.status == .forbidden || other.status == .notFound)
                let anonymous = try await client.send(
                    .post, "/v1/folders/docs/chunks/fetch", json: FetchChunksRequest(hashes: [Make.hash([1])]))
                #expect(anonymous.status == .unauthorized)
            }
        }
    }

    @Test func aResponseStopsAtTheByteLimitAndAlwaysHoldsOneRecord() async throws {
        try await Fixture.with { fixture in
            let chunks = (0..<4).map { i in [UInt8](repeating: UInt8(i), count: 1000) }
            for chunk in chunks {
                #expect(try await fixture.server.chunks.store(hash: Make.hash(chunk), bytes: .init(bytes: chunk)))
            }
            let hashes = chunks.map(Make.hash)
            let two = try await fixture.server.chunks.batch(of: hashes, limit: 2 * (1000 + ChunkBatch.headerSize))
            #expect(try ChunkBatch.decode(Array(two.readableBytesView)).map(\.hash) == Array(hashes.prefix(2)))
            let one = try await fixture.server.chunks.batch(of: hashes, limit: 10)
            #expect(try ChunkBatch.decode(Array(one.readableBytesView)).map(\.hash) == [hashes[0]])
        }
    }
}
