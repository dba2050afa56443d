import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

@Suite("Chunk batches")
struct ChunkBatchTests {
    struct Stored: Decodable {
        var stored: Int
        var received: Int
    }

    @Test func batchStoresEveryRecordOnce() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let chunks = (0..<50).map { Make.bytes("small file number \($0)") }
                let existing = try await client.putChunk(chunks[0], token: token)
                let body = ChunkBatch.encode(chunks.map { (hash: Make.hash($0), bytes: $0) })
                let response = try await client.send(.post, "/v1/folders/docs/chunks/batch", token: token, body: body)
                #expect(response.status == .ok)
                let result = try response.decode(Stored.self)
                #expect(result.stored == 49)
                #expect(result.received == 50)
                for chunk in chunks {
                    let get = try await client.send(.get, "/v1/folders/docs/chunks/\(Make.hash(chunk))", token: token)
                    #expect(get.bytes == chunk)
                }
                _ = existing
            }
        }
    }

    @Test func batchWithOneBadRecordStoresNothing() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let good = Make.bytes("good"), bad = Make.bytes("bad")
                let lie = Make.hash(Make.bytes("not bad"))
                let body = ChunkBatch.encode([(hash: Make.hash(good), bytes: good), (hash: lie, bytes: bad)])
                let response = try await client.send(.post, "/v1/folders/docs/chunks/batch", token: token, body: body)
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "hash_mismatch")
                #expect(response.text.contains(lie))
                #expect(try await fixture.server.chunks.sizes(of: [Make.hash(good), lie]).isEmpty)
                #expect(try fixture.server.chunks.packsOnDisk().values.allSatisfy { $0 == 0 })
            }
        }
    }

    @Test func truncatedBatchIs400() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                var body = ChunkBatch.encode([(hash: Make.hash([1, 2, 3]), bytes: [1, 2, 3])])
                body.removeLast()
                let response = try await client.send(.post, "/v1/folders/docs/chunks/batch", token: token, body: body)
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "bad_request")
            }
        }
    }
}
