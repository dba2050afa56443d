import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

@Suite("Chunk upload and download")
struct ChunkTests {
    func missing(_ hashes: [String], client: some TestClientProtocol, token: String) async throws -> [String] {
        let response = try await client.send(
            .post, "/v1/folders/docs/chunks/missing", token: token, json: MissingChunksRequest(hashes: hashes))
        try #require(response.status == .ok, "\(response.text)")
        return try response.decode(MissingChunksResponse.self).missing
    }

    @Test func putWithWrongHashIs400AndStoresNothing() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let claimed = Make.hash(Make.bytes("what the client meant"))
                let response = try await client.send(
                    .put, "/v1/folders/docs/chunks/\(claimed)", token: token, body: Make.bytes("something else"))
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "hash_mismatch")
                #expect(try await missing([claimed], client: client, token: token) == [claimed])
                #expect(fixture.server.chunks.syncCalls == 0)
                #expect(try fixture.server.chunks.packsOnDisk().values.allSatisfy { $0 == 0 })
            }
        }
    }

    @Test func putIsIdempotentAndMissingReflectsIt() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let a = Make.bytes("chunk a"), b = Make.bytes("chunk b")
                #expect(try await missing([Make.hash(a), Make.hash(b)], client: client, token: token).count == 2)
                let uri = "/v1/folders/docs/chunks/\(Make.hash(a))"
                #expect(try await client.send(.put, uri, token: token, body: a).status == .created)
                #expect(try await client.send(.put, uri, token: token, body: a).status == .ok)
                let left = try await missing([Make.hash(a), Make.hash(b), Make.hash(b)], client: client, token: token)
                #expect(left == [Make.hash(b)])
                let get = try await client.send(.get, uri, token: token)
                #expect(get.status == .ok)
                #expect(get.bytes == a)
                #expect(get.headers[.contentType] == "application/octet-stream")
            }
        }
    }

    @Test func invalidHashesAre400() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let query = try await client.send(
                    .post, "/v1/folders/docs/chunks/missing", token: token,
                    json: MissingChunksRequest(hashes: ["ABC", Make.hash([1]).uppercased()]))
                #expect(query.status == .badRequest)
                #expect(query.errorCode == "bad_request")
                let put = try await client.send(.put, "/v1/folders/docs/chunks/xyz", token: token, body: [1])
                #expect(put.status == .badRequest)
                let malformed = try await client.send(
                    .post, "/v1/folders/docs/chunks/missing", token: token, body: Make.bytes("{\"hashes\": 3}"))
                #expect(malformed.status == .badRequest)
                #expect(malformed.errorCode == "bad_request")
                #expect(malformed.text.contains("hashes"))
            }
        }
    }

    @Test func oversizedChunkIs413() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let big = [UInt8](repeating: 7, count: RequestBodyLimit.chunk + 1)
                let response = try await client.send(
                    .put, "/v1/folders/docs/chunks/\(Make.hash(big))", token: token, body: big)
                #expect(response.status == .contentTooLarge)
                #expect(response.errorCode == "too_large")
            }
        }
    }

    @Test func getUnknownChunkIs404() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let response = try await client.send(.get, "/v1/folders/docs/chunks/\(Make.hash([9]))", token: token)
                #expect(response.status == .notFound)
                #expect(response.errorCode == "not_found")
            }
        }
    }

    @Test func rangeRequests() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let bytes = (0..<1000).map { UInt8($0 % 251) }
                let uri = "/v1/folders/docs/chunks/\(try await client.putChunk(bytes, token: token))"

                let middle = try await client.send(.get, uri, token: token, headers: [.range: "bytes=10-19"])
                #expect(middle.status == .partialContent)
                #expect(middle.bytes == Array(bytes[10...19]))
                #expect(middle.headers[.contentRange] == "bytes 10-19/1000")

                let tail = try await client.send(.get, uri, token: token, headers: [.range: "bytes=990-"])
                #expect(tail.status == .partialContent)
                #expect(tail.bytes == Array(bytes[990...]))
                #expect(tail.headers[.contentRange] == "bytes 990-999/1000")

                let suffix = try await client.send(.get, uri, token: token, headers: [.range: "bytes=-5"])
                #expect(suffix.bytes == Array(bytes[995...]))

                let beyond = try await client.send(.get, uri, token: token, headers: [.range: "bytes=1000-"])
                #expect(beyond.status == .rangeNotSatisfiable)
                #expect(beyond.headers[.contentRange] == "bytes */1000")
                #expect(beyond.errorCode == "range_not_satisfiable")
            }
        }
    }
}
