import Foundation
import HummingbirdTesting
import Testing

@testable import SyncServerKit

/// `/v1/health` says the process answers; `/v1/ready` that the stores do too, and
/// answers 503 naming the store that does not.
@Suite struct ReadinessTests {
    @Test func readyWhileTheStoresAnswerAndNotWhenThePackDirectoryIsGone() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let ready = try await client.execute(uri: "/v1/ready", method: .get)
                #expect(ready.status == .ok)
                #expect(String(buffer: ready.body).contains("ready"))

                let packs = fixture.server.chunks.packsDir
                try FileManager.default.moveItem(atPath: packs, toPath: packs + ".away")
                let gone = try await client.execute(uri: "/v1/ready", method: .get)
                #expect(gone.status == .serviceUnavailable)
                #expect(String(buffer: gone.body).contains("not_ready") && String(buffer: gone.body).contains("chunk store"))
                #expect(!String(buffer: gone.body).contains(packs), "no paths in an unauthenticated answer")
                let health = try await client.execute(uri: "/v1/health", method: .get)
                #expect(health.status == .ok, "the process itself still answers")

                try FileManager.default.moveItem(atPath: packs + ".away", toPath: packs)
                #expect(try await client.execute(uri: "/v1/ready", method: .get).status == .ok)
            }
        }
    }
}
