import Foundation
import GRDB
import HummingbirdTesting
import ObjectStorage
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// Packs kept in an S3-compatible bucket (a real moto server on 127.0.0.1): every upload
/// request is a pack of its own, uploaded before its chunks are indexed; reads, compaction
/// and start-up recovery go through the bucket.
@Suite("Packs in object storage")
struct ObjectStoragePackTests {
    static func chunk(_ n: UInt64, size: Int = 2000) -> [UInt8] { pseudoRandomBytes(count: size, seed: 2 * n + 1) }

    /// A fresh bucket on `moto` as the server's blob settings.
    static func bucket(_ moto: MotoServer) async throws -> (ServerSettings.Blobs, S3Client) {
        let location = S3Location(
            bucket: "sync-\(UInt32.random(in: 0...UInt32.max))", prefix: "srv", endpoint: URL(string: moto.endpoint)!,
            region: "us-east-1", pathStyle: true)
        let credentials = S3Credentials(accessKeyID: MotoServer.accessKeyID, secretAccessKey: MotoServer.secretAccessKey)
        let client = S3Client(location: location, credentials: credentials)
        try await client.createBucket()
        return (.s3(location, credentials), client)
    }

    static func packObjects(_ client: S3Client) async throws -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: try await client.list(prefix: "packs/").map { ($0.key, $0.size) })
    }

    @Test func uploadsBecomeObjectsAndAreServedFromThem() async throws {
        let moto = try await MotoServer.start()
        let (blobs, s3) = try await Self.bucket(moto)
        try await Fixture.with(blobs: blobs) { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let singles = (0..<3).map { Self.chunk($0) }
                for chunk in singles { try await client.putChunk(chunk, token: token) }
                let many = (10..<60).map { Self.chunk($0, size: 700) }
                let body = ChunkBatch.encode(many.map { (Make.hash($0), $0) })
                let response = try await client.send(.post, "/v1/folders/docs/chunks/batch", token: token, body: body)
                #expect(response.status == .ok)

                // Four requests, four packs, all in the bucket under the prefix; none left here.
                let objects = try await Self.packObjects(s3)
                #expect(objects.count == 4)
                #expect(objects.keys.allSatisfy { $0.hasPrefix("srv/packs/") })
                #expect(try fixture.server.chunks.packsOnDisk().isEmpty)
                let unsealed = try await (try fixture.pool).read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM packs WHERE sealed = 0")
                }
                #expect(unsealed == 0)

                for chunk in singles + [many[7]] {
                    let get = try await client.send(.get, "/v1/folders/docs/chunks/\(Make.hash(chunk))", token: token)
                    #expect(get.status == .ok)
                    #expect(get.bytes == chunk)
                }
                // A batch fetch of the 50 small chunks: read from the bucket, every one intact.
                let fetch = try await client.send(
                    .post, "/v1/folders/docs/chunks/fetch", token: token,
                    json: FetchChunksRequest(hashes: many.map(Make.hash)))
                #expect(fetch.status == .ok)
                let records = try ChunkBatch.decode(fetch.bytes)
                #expect(records.map(\.hash) == many.map(Make.hash))
                #expect(records.map { Array($0.bytes) } == many)
            }
        }
    }

    @Test func compactionRewritesAndDeletesObjects() async throws {
        let moto = try await MotoServer.start()
        let (blobs, s3) = try await Self.bucket(moto)
        try await Fixture.with(blobs: blobs) { fixture in
            let chunks = (0..<6).map { Self.chunk(100 + $0) }
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                // Two packs of three chunks each; chunk 0 alone is kept.
                for group in [Array(chunks[0..<3]), Array(chunks[3..<6])] {
                    let body = ChunkBatch.encode(group.map { (Make.hash($0), $0) })
                    #expect(try await client.send(.post, "/v1/folders/docs/chunks/batch", token: token, body: body).status == .ok)
                }
                _ = try await client.commitOK([Make.file("kept", chunks: [chunks[0]])], token: token)
            }
            #expect(try await Self.packObjects(s3).count == 2)
            let report = try await fixture.gc(at: .inDays(2))
            #expect(report.chunksDropped == 5)
            #expect(report.packsRewritten == 1)
            #expect(report.packsDeleted == 1)
            // The two old packs are gone from the bucket; the copy of chunk 0 is a new object.
            let after = try await Self.packObjects(s3)
            #expect(after.count == 1)
            #expect(after.values.first == Int64(PackRecord.headerSize + 2000))
            let at = try await fixture.server.chunks.location(Make.hash(chunks[0]))
            #expect(try await fixture.server.chunks.readChecked(hash: Make.hash(chunks[0]), at: at) == chunks[0])
            #expect(try fixture.server.chunks.packsOnDisk().isEmpty)
        }
    }

    /// A crash can leave a pack here that was never uploaded (its chunks unindexed), and an
    /// object in the bucket whose chunks were never indexed. The next start uploads and
    /// indexes the first (its records verify) and deletes the second.
    @Test func startUpUploadsLeftoverPacksAndDeletesOrphans() async throws {
        let moto = try await MotoServer.start()
        let (blobs, s3) = try await Self.bucket(moto)
        try await Fixture.with(blobs: blobs) { fixture in
            let leftover = Self.chunk(200)
            let bytes = ChunkBatch.encode([(Make.hash(leftover), leftover)])
            let leftoverPack: PackID = 40
            try Data(bytes).write(to: URL(fileURLWithPath: fixture.server.chunks.packPath(leftoverPack)))
            let orphanKey = s3.key("packs/" + PackName.file(41))
            try await s3.put(key: orphanKey, bytes: bytes)

            let restarted = try await fixture.reopened()
            let report = try await restarted.server.chunks.recoverRemote()
            #expect(report.uploaded == 1)
            #expect(report.orphansDeleted == 1)
            let objects = try await Self.packObjects(s3)
            #expect(objects.keys.sorted() == [s3.key("packs/" + PackName.file(leftoverPack))])
            #expect(try restarted.server.chunks.packsOnDisk().isEmpty)
            #expect(try await restarted.server.chunks.missing([Make.hash(leftover)]).isEmpty)
            let at = try await restarted.server.chunks.location(Make.hash(leftover))
            #expect(try await restarted.server.chunks.readChecked(hash: Make.hash(leftover), at: at) == leftover)
        }
    }

    @Test func aPackGoneFromTheBucketIsForgottenAtStart() async throws {
        let moto = try await MotoServer.start()
        let (blobs, s3) = try await Self.bucket(moto)
        try await Fixture.with(blobs: blobs) { fixture in
            let chunk = Self.chunk(300)
            _ = try await fixture.server.makeApplication().test(.router) { client in
                try await client.putChunk(chunk, token: try await client.token(fixture.credential))
            }
            for object in try await Self.packObjects(s3).keys { try await s3.delete(key: object) }
            let restarted = try await fixture.reopened()
            let report = try await restarted.server.chunks.recoverRemote()
            #expect(report.dropped == [Make.hash(chunk)])
            #expect(try await restarted.server.chunks.missing([Make.hash(chunk)]) == [Make.hash(chunk)])
        }
    }

    @Test func anUnreachableBucketFailsTheUploadAndTheReadiness() async throws {
        let moto = try await MotoServer.start()
        let (blobs, _) = try await Self.bucket(moto)
        try await Fixture.with(blobs: blobs) { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                #expect(try await client.send(.get, "/v1/ready").status == .ok)
                moto.stop()
                let chunk = Self.chunk(400)
                let body = ChunkBatch.encode([(Make.hash(chunk), chunk)])
                let response = try await client.send(.post, "/v1/folders/docs/chunks/batch", token: token, body: body)
                #expect(response.status == .internalServerError)
                // Nothing indexed, nothing left behind here.
                #expect(try await fixture.server.chunks.missing([Make.hash(chunk)]) == [Make.hash(chunk)])
                #expect(try fixture.server.chunks.packsOnDisk().isEmpty)
                #expect(try await client.send(.get, "/v1/ready").status == .serviceUnavailable)
            }
        }
    }
}

extension ObjectStoragePackTests {
    /// Changing a server's config from `filesystem` to a bucket in place: the next start
    /// uploads every pack of the data directory and serves them from the bucket.
    @Test func switchingAServerToABucketUploadsItsPacksAtStart() async throws {
        let moto = try await MotoServer.start()
        let (blobs, s3) = try await Self.bucket(moto)
        try await Fixture.with(packRotation: 4096) { fixture in
            let chunks = (0..<8).map { Self.chunk(500 + $0) }
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                for chunk in chunks { _ = try await client.putChunk(chunk, token: token) }
            }
            let local = try fixture.server.chunks.packsOnDisk()
            #expect(local.count == 4)
            let moved = Fixture(
                tmp: fixture.tmp, server: try await Fixture.openServer(dataDir: fixture.dataDir, blobs: blobs), credential: fixture.credential)
            let report = try await moved.server.chunks.recoverRemote()
            #expect(report.uploaded == 4)
            #expect(try moved.server.chunks.packsOnDisk().isEmpty)
            #expect(try await Self.packObjects(s3).count == 4)
            for chunk in chunks {
                let at = try await moved.server.chunks.location(Make.hash(chunk))
                #expect(try await moved.server.chunks.readChecked(hash: Make.hash(chunk), at: at) == chunk)
            }
        }
    }
}
