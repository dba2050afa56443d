import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

@Suite("Path validation on commit")
struct PathValidationTests {
    @Test(arguments: ["../x", "a/../b", "/abs", "a//b", "a\u{0}b", "", ".", "a/./b", "a/", "x/.."])
    func traversalIsRejectedAndNothingWritten(path: String) async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                // A valid change first: the whole request must be refused.
                let response = try await client.commit([Make.directory("fine"), Make.directory(path)], token: token)
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "invalid_path")
                let feed = try await client.feed(token: token)
                #expect(feed.entries.isEmpty)
                #expect(feed.cursor == 0)
                #expect(try await fixture.server.metadata.folderRev(Fixture.folder) == 0)
            }
        }
    }

    @Test func pathsAreStoredNFC() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let decomposed = "cafe\u{301}"
                let response = try await client.commitOK([Make.directory(decomposed)], token: token)
                #expect(response.results.first?.path == "caf\u{e9}")
                let history = try await client.send(
                    .get, "/v1/folders/docs/history?path=caf%C3%A9", token: token)
                #expect(history.status == .ok)
                #expect(try history.decode(HistoryResponse.self).versions.count == 1)
            }
        }
    }
}
