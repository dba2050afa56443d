import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

@Suite("Large commits")
struct LargeCommitTests {
    @Test func tenThousandChangesInOneRequest() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let count = 10_000
                let clock = ContinuousClock()
                var start = clock.now
                let contents = (0..<count).map { Make.bytes("contents of file \($0)") }
                let batch = ChunkBatch.encode(contents.map { (hash: Make.hash($0), bytes: $0) })
                let changes = contents.enumerated().map { i, bytes in
                    Make.file("dir\(i % 100)/file\(i).txt", chunks: [bytes])
                }
                print("building 10,000 chunks and changes: \(clock.now - start)")
                start = clock.now
                let upload = try await client.send(.post, "/v1/folders/docs/chunks/batch", token: token, body: batch)
                try #require(upload.status == .ok)
                print("batch upload of 10,000 chunks: \(clock.now - start)")

                start = clock.now
                let response = try await client.commitOK(changes, token: token)
                let elapsed = clock.now - start
                print("10,000-change commit (HTTP round trip via router, incl. JSON): \(elapsed)")

                #expect(response.results.count == count)
                #expect(response.results.allSatisfy { $0.status == .ok })
                #expect(response.folderRev == Int64(count))

                start = clock.now
                let page = try await client.feed("since=0&limit=10000", token: token)
                print("feed page of 10,000 entries: \(clock.now - start)")
                #expect(page.entries.count == count)
                #expect(page.hasMore == false)
                #expect(page.cursor == Int64(count))
            }
        }
    }

    @Test func storeCommitsTenThousandRowsInOneTransaction() async throws {
        try await Fixture.with { fixture in
            let changes = (0..<10_000).map { Make.directory("d/\($0)") }
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await fixture.server.metadata.commit(
                folder: Fixture.folder, device: fixture.deviceID, changes: changes)
            let elapsed = clock.now - start
            print("10,000-row commit transaction (store only): \(elapsed)")
            #expect(response?.folderRev == 10_000)
        }
    }
}
