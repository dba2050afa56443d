import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

@Suite("Change feed")
struct FeedTests {
    @Test func sinceCursorHasMoreAndLimit() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let empty = try await client.feed(token: token)
                #expect(empty.entries.isEmpty && empty.cursor == 0 && !empty.hasMore)

                _ = try await client.commitOK((1...5).map { Make.directory("d\($0)") }, token: token)
                // d2 changes again: it moves to the end of the feed with rev 6.
                _ = try await client.commitOK([Make.tombstone("d2", base: 2)], token: token)

                let page1 = try await client.feed("since=0&limit=2", token: token)
                #expect(page1.entries.map(\.path) == ["d1", "d3"])
                #expect(page1.cursor == 3)
                #expect(page1.hasMore)

                let page2 = try await client.feed("since=\(page1.cursor)&limit=2", token: token)
                #expect(page2.entries.map(\.path) == ["d4", "d5"])
                #expect(page2.hasMore)

                let page3 = try await client.feed("since=\(page2.cursor)&limit=2", token: token)
                #expect(page3.entries.map(\.path) == ["d2"])
                #expect(page3.entries.first?.deleted == true)
                #expect(page3.cursor == 6)
                #expect(!page3.hasMore)

                let caughtUp = try await client.feed("since=6", token: token)
                #expect(caughtUp.entries.isEmpty && caughtUp.cursor == 6 && !caughtUp.hasMore)
            }
        }
    }

    @Test(arguments: ["since=-1", "since=abc", "wait=61", "wait=-1", "limit=0", "limit=10001", "limit=x"])
    func badParametersAre400(query: String) async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let response = try await client.changes(query, token: token)
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "bad_request")
            }
        }
    }

    @Test func historyListsVersionsNewestFirst() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let a = Make.bytes("a"), b = Make.bytes("b")
                try await client.putChunk(a, token: token)
                try await client.putChunk(b, token: token)
                _ = try await client.commitOK([Make.file("h.txt", chunks: [a])], token: token)
                _ = try await client.commitOK([Make.file("h.txt", base: 1, chunks: [b])], token: token)
                _ = try await client.commitOK([Make.tombstone("h.txt", base: 2)], token: token)
                let response = try await client.send(.get, "/v1/folders/docs/history?path=h.txt", token: token)
                #expect(response.status == .ok)
                let versions = try response.decode(HistoryResponse.self).versions
                #expect(versions.map(\.rev) == [3, 2, 1])
                #expect(versions.map(\.deleted) == [true, false, false])
                #expect(versions[2].chunks == [Make.hash(a)])
                let admin = try await fixture.server.admin.history(folder: Fixture.folder, path: "h.txt")
                #expect(admin == versions)
                let bad = try await client.send(.get, "/v1/folders/docs/history?path=../etc", token: token)
                #expect(bad.errorCode == "invalid_path")
            }
        }
    }
}
