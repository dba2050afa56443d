import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

/// A commit with a `commit_id` is applied once: its retry (after a lost reply)
/// gets the remembered reply, also for a directory move.
@Suite("Idempotent commits")
struct IdempotentCommitTests {
    @Test func aRetriedCommitIsAnsweredFromMemoryAndAppliedOnce() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let bytes = Make.bytes("once")
                try await client.putChunk(bytes, token: token)
                let setup = try await client.commitOK(
                    [Make.directory("dir"), Make.file("dir/a.txt", chunks: [bytes]), Make.file("gone.txt", chunks: [bytes])],
                    token: token)
                let changes = [
                    CommitChange.move(from: "dir", to: "moved", kind: .directory, baseRev: setup.results[0].rev),
                    Make.tombstone("gone.txt", base: setup.results[2].rev),
                ]
                let request = CommitRequest(changes: changes, commitId: "move-0001")
                let first = try await client.send(.post, "/v1/folders/docs/commit", token: token, json: request)
                #expect(first.status == .ok)
                let applied = try first.decode(CommitResponse.self)
                #expect(applied.results.allSatisfy { $0.status == .ok })
                // The reply was lost: the client sends the same request again.
                let again = try await client.send(.post, "/v1/folders/docs/commit", token: token, json: request)
                #expect(again.status == .ok)
                let replayed = try again.decode(CommitResponse.self)
                #expect(replayed.results == applied.results)
                #expect(replayed.folderRev == applied.folderRev)
                #expect(try await fixture.server.metadata.folderRev(Fixture.folder) == applied.folderRev, "nothing applied twice")
                let tree = try await client.feed(token: token).entries.reduce(into: [String: WireEntry]()) { $0[$1.path] = $1 }
                #expect(tree["moved/a.txt"]?.deleted == false && tree["dir/a.txt"]?.deleted == true && tree["gone.txt"]?.deleted == true)
                // The same id with other changes is refused.
                let reused = try await client.send(
                    .post, "/v1/folders/docs/commit", token: token,
                    json: CommitRequest(changes: [Make.file("other.txt", chunks: [bytes])], commitId: "move-0001"))
                #expect(reused.status == .badRequest)
                #expect(reused.text.contains("already used"))
                // Ids are validated.
                let bad = try await client.send(
                    .post, "/v1/folders/docs/commit", token: token,
                    json: CommitRequest(changes: [Make.file("x.txt", chunks: [bytes])], commitId: "../x"))
                #expect(bad.status == .badRequest)
            }
        }
    }
}
