import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

@Suite("Commit: moves")
struct MoveTests {
    @Test func directoryMoveIsOneChangeAndKeepsContent() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let one = Make.bytes("one"), two = Make.bytes("two")
                try await client.putChunk(one, token: token)
                try await client.putChunk(two, token: token)
                _ = try await client.commitOK(
                    [Make.directory("a"), Make.directory("a/sub"), Make.file("a/1.txt", chunks: [one]),
                     Make.file("a/sub/2.txt", chunks: [two]), Make.file("ab.txt", chunks: [one])],
                    token: token)
                // "ab.txt" sorts between "a/" and "a0": it must not move.
                let moved = try await client.commitOK(
                    [.move(from: "a", to: "b/c", kind: .directory, baseRev: 1)], token: token)
                let result = try #require(moved.results.first)
                #expect(result.status == .ok)
                #expect(result.moved == [
                    MovedEntry(path: "a", rev: 1), MovedEntry(path: "a/1.txt", rev: 3), MovedEntry(path: "a/sub", rev: 2),
                    MovedEntry(path: "a/sub/2.txt", rev: 4),
                ])
                #expect(result.rev == 6)
                #expect(moved.folderRev == 13)

                let feed = try await client.feed("since=5", token: token)
                // Arrivals (parents first) come before departures (children first).
                #expect(feed.entries.map(\.path) == [
                    "b/c", "b/c/1.txt", "b/c/sub", "b/c/sub/2.txt", "a/sub/2.txt", "a/sub", "a/1.txt", "a",
                ])
                #expect(feed.entries.prefix(4).map(\.movedFrom) == ["a", "a/1.txt", "a/sub", "a/sub/2.txt"])
                #expect(feed.entries.suffix(4).allSatisfy { $0.deleted && $0.movedFrom == nil })
                #expect(feed.entries.suffix(4).map(\.movedTo) == ["b/c/sub/2.txt", "b/c/sub", "b/c/1.txt", "b/c"])
                let arrived = try #require(feed.entries.first { $0.path == "b/c/sub/2.txt" })
                #expect(arrived.contentHash == Hashing.contentHash(chunks: [Make.hash(two)]))
                #expect(arrived.chunks == [Make.hash(two)])
                #expect(arrived.device == fixture.deviceID)

                // History of the new path says where it came from; a later edit clears it.
                let edited = try await client.commitOK([Make.file("b/c/1.txt", base: 7, chunks: [two])], token: token)
                #expect(edited.results.first?.status == .ok)
                let after = try await client.feed("since=13", token: token)
                #expect(after.entries.map(\.movedFrom) == [nil])
            }
        }
    }

    @Test func moveConflictsWhenTheSourceChangedOrTheTargetIsTaken() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let data = Make.bytes("data")
                try await client.putChunk(data, token: token)
                _ = try await client.commitOK(
                    [Make.file("f", chunks: [data]), Make.directory("taken"), Make.file("taken/x", chunks: [data])],
                    token: token)
                // Stale base: the source is at rev 1, not 9.
                let stale = try await client.commitOK([.move(from: "f", to: "g", kind: .file, baseRev: 9)], token: token)
                #expect(stale.results.first?.status == .conflict)
                #expect(stale.results.first?.current?.path == "f")
                // The destination (or something below it) is live.
                let taken = try await client.commitOK([.move(from: "f", to: "taken", kind: .file, baseRev: 1)], token: token)
                #expect(taken.results.first?.status == .conflict)
                #expect(taken.results.first?.current?.path == "taken")
                // Wrong kind, or a source that does not exist.
                let kind = try await client.commitOK([.move(from: "f", to: "g", kind: .directory, baseRev: 1)], token: token)
                #expect(kind.results.first?.status == .conflict)
                let absent = try await client.commitOK([.move(from: "nope", to: "g", kind: .file, baseRev: 1)], token: token)
                #expect(absent.results.first?.status == .conflict)
                #expect(absent.results.first?.current == nil)
                #expect(absent.folderRev == 3)
                // A tombstone at the destination does not stand in the way.
                _ = try await client.commitOK([Make.tombstone("taken/x", base: 3), Make.tombstone("taken", base: 2)], token: token)
                let ok = try await client.commitOK([.move(from: "f", to: "taken", kind: .file, baseRev: 1)], token: token)
                #expect(ok.results.first?.status == .ok)
                #expect(ok.results.first?.moved == [MovedEntry(path: "f", rev: 1)])
            }
        }
    }

    @Test func badMovesAreRejectedWhole() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                _ = try await client.commitOK([Make.directory("d")], token: token)
                for bad in [
                    CommitChange.move(from: "../x", to: "y", kind: .file, baseRev: 1),
                    .move(from: "d", to: "d/inside", kind: .directory, baseRev: 1),
                    .move(from: "d", to: "e", kind: .directory, baseRev: 0),
                ] {
                    let response = try await client.commit([Make.directory("side"), bad], token: token)
                    #expect(response.status == .badRequest, "\(bad)")
                }
                #expect(try await client.feed(token: token).entries.map(\.path) == ["d"])
            }
        }
    }
}
