import Foundation
import HummingbirdTesting
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

@Suite("storage check")
struct StorageCheckTests {
    @Test func passesOnAGoodStoreAndNamesEveryDamagedOrMissingChunk() async throws {
        try await Fixture.with { fixture in
            let a = pseudoRandomBytes(count: 2000, seed: 1_001), b = pseudoRandomBytes(count: 3000, seed: 2_001)
            let c = pseudoRandomBytes(count: 4000, seed: 3_001)
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                for chunk in [a, b, c] { try await client.putChunk(chunk, token: token) }
                _ = try await client.commitOK([Make.file("one", chunks: [a, b]), Make.file("two", chunks: [c])], token: token)
                // "one" at rev 3 keeps its rev-1 version (a, b) in the history.
                _ = try await client.commitOK([Make.file("one", base: 1, chunks: [b])], token: token)
            }
            let good = try await StorageCheck.run(dataDir: fixture.dataDir)
            #expect(good.problems.isEmpty)
            #expect(good.chunks == 3)
            #expect(good.summary.hasPrefix("storage check: ok: 3 chunk(s)"))

            try await fixture.server.chunks.rot(Make.hash(a), at: 10)
            try await fixture.server.chunks.forget(Make.hash(c))
            let bad = try await StorageCheck.run(dataDir: fixture.dataDir)
            let lines = bad.problems.map(\.description)
            #expect(bad.problems.count == 2, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("docs/one rev 1: chunk \(Make.hash(a)): damaged:") })
            #expect(lines.contains { $0.hasPrefix("docs/two rev 2: chunk \(Make.hash(c)): not in the chunk index") })
            #expect(bad.summary.contains("2 of 3 referenced chunk(s) missing or damaged"))
        }
    }
}
