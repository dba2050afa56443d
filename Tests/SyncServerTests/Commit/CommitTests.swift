import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

@Suite("Commit")
struct CommitTests {
    @Test func newFileThenStaleBaseIsAConflictWithTheCurrentEntry() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let v1 = Make.bytes("version one"), v2 = Make.bytes("version two")
                try await client.putChunk(v1, token: token)
                try await client.putChunk(v2, token: token)

                let first = try await client.commitOK([Make.file("notes/a.txt", chunks: [v1])], token: token)
                #expect(first.results == [CommitResult(path: "notes/a.txt", status: .ok, rev: 1)])
                #expect(first.folderRev == 1)

                let second = try await client.commitOK([Make.file("notes/a.txt", base: 1, chunks: [v2])], token: token)
                #expect(second.results.first?.status == .ok)
                #expect(second.results.first?.rev == 2)

                // Another device still thinks rev 1 is current.
                let stale = try await client.commitOK([Make.file("notes/a.txt", base: 1, chunks: [v1])], token: token)
                let result = try #require(stale.results.first)
                #expect(result.status == .conflict)
                #expect(result.rev == 2)
                #expect(result.current?.contentHash == Hashing.contentHash(chunks: [Make.hash(v2)]))
                #expect(result.current?.rev == 2)
                #expect(result.current?.device == fixture.deviceID)
                #expect(stale.folderRev == 2)

                // base_rev 0 on an existing path conflicts too.
                let recreate = try await client.commitOK([Make.file("notes/a.txt", chunks: [v1])], token: token)
                #expect(recreate.results.first?.status == .conflict)
            }
        }
    }

    @Test func missingChunkIs400AndNothingIsWritten() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let present = Make.bytes("uploaded"), absent = Make.bytes("never uploaded")
                try await client.putChunk(present, token: token)
                let response = try await client.commit(
                    [Make.file("ok.txt", chunks: [present]), Make.file("bad.txt", chunks: [present, absent])],
                    token: token)
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "missing_chunks")
                #expect(response.text.contains(Make.hash(absent)))
                #expect(try await client.feed(token: token).entries.isEmpty)
            }
        }
    }

    @Test func tombstoneThenRecreate() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let data = Make.bytes("data")
                try await client.putChunk(data, token: token)
                _ = try await client.commitOK([Make.file("f", chunks: [data])], token: token)
                let deleted = try await client.commitOK([Make.tombstone("f", base: 1)], token: token)
                #expect(deleted.results.first?.status == .ok)
                let feed = try await client.feed(token: token)
                #expect(feed.entries.count == 1)
                #expect(feed.entries.first?.deleted == true)
                #expect(feed.entries.first?.rev == 2)
                // A tombstone counts as absent for base_rev 0.
                let again = try await client.commitOK([Make.file("f", chunks: [data])], token: token)
                #expect(again.results.first?.status == .ok)
                #expect(again.results.first?.rev == 3)
            }
        }
    }

    @Test func directoriesSymlinksAndEmptyFiles() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let response = try await client.commitOK(
                    [Make.directory("d"), Make.symlink("d/link", target: "../elsewhere"), Make.file("d/empty", chunks: [])],
                    token: token)
                #expect(response.results.map(\.status) == [.ok, .ok, .ok])
                let entries = try await client.feed(token: token).entries
                #expect(entries.map(\.kind) == [.directory, .symlink, .file])
                #expect(entries[1].symlinkTarget == "../elsewhere")
                #expect(entries[2].size == 0)
            }
        }
    }

    @Test(arguments: ["dir-with-chunks", "symlink-without-target", "bad-content-hash", "wrong-size", "negative-base"])
    func inconsistentChangesAre400(kind: String) async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let data = Make.bytes("payload")
                try await client.putChunk(data, token: token)
                var change = Make.file("x", chunks: [data])
                switch kind {
                case "dir-with-chunks": change.kind = .directory
                case "symlink-without-target": change = Make.symlink("x", target: "t"); change.symlinkTarget = nil
                case "bad-content-hash": change.contentHash = Make.hash(data)
                case "wrong-size": change.size += 1
                default: change.baseRev = -1
                }
                let response = try await client.commit([change], token: token)
                #expect(response.status == .badRequest, "\(response.text)")
                #expect(response.errorCode == "bad_request")
                #expect(try await fixture.server.metadata.folderRev(Fixture.folder) == 0)
            }
        }
    }

    @Test func malformedJSONIs400WithTheReason() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let response = try await client.send(
                    .post, "/v1/folders/docs/commit", token: token, body: Make.bytes(#"{"changes": [{"path": 1}]}"#))
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "bad_request")
                #expect(response.text.contains("changes.0.path"))
            }
        }
    }

    /// Chunks are durable once acknowledged (one fdatasync per upload request, before the
    /// index row): the commit has nothing left to sync.
    @Test func uploadsAreSyncedOncePerRequestAndCommitsSyncNothingMore() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let chunks = fixture.server.chunks
                try await client.putChunk(Make.bytes("one"), token: token)
                try await client.putChunk(Make.bytes("two"), token: token)
                #expect(chunks.syncCalls == 2)
                try await client.putChunk(Make.bytes("two"), token: token)
                #expect(chunks.syncCalls == 2)
                _ = try await client.commitOK(
                    [Make.file("1", chunks: [Make.bytes("one")]), Make.file("2", chunks: [Make.bytes("two")])],
                    token: token)
                #expect(chunks.syncCalls == 2)
            }
        }
    }
}
