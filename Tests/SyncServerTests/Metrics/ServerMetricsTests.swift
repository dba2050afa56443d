import Foundation
import HummingbirdTesting
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// `GET /metrics`: real uploads, commits and refused requests move the counters a scrape shows.
@Suite("Server metrics")
struct ServerMetricsTests {
    static let commitRoute = "/v1/folders/{folder}/commit"

    @Test func uploadsCommitsAndAuthFailuresAreCounted() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                // The start's storage round sets the stored-chunk gauges from the index: let it
                // end first, so the uploads below move them by exactly what they add.
                try await client.waitForStorageRound()
                let before = try await client.scrape()
                #expect(before.value("sync_server_commits_total") == 0)
                #expect(before.value("sync_server_http_requests_total", ["route": Self.commitRoute]) == nil)

                let token = try await client.token(fixture.credential)
                let one = Make.bytes("first file"), two = Make.bytes("second, longer file")
                try await client.putChunk(one, token: token)
                try await client.putChunk(two, token: token)
                try await client.putChunk(two, token: token)  // already stored: bytes in, nothing new
                _ = try await client.commitOK(
                    [Make.file("a.txt", chunks: [one]), Make.file("b.txt", chunks: [two])], token: token)
                let chunk = try await client.send(.get, "/v1/folders/docs/chunks/\(Make.hash(two))", token: token)
                #expect(chunk.status == .ok)
                let refused = try await client.changes(token: String(repeating: "ab", count: 32))
                #expect(refused.status == .unauthorized)
                let unknown = try await client.send(.get, "/v1/no/such/route")
                #expect(unknown.status == .notFound)

                let after = try await client.scrape()
                #expect(after.value("sync_server_commits_total") == 1)
                #expect(after.value("sync_server_committed_changes_total") == 2)
                #expect(
                    after.value(
                        "sync_server_http_requests_total",
                        ["route": Self.commitRoute, "method": "POST", "status": "200"]) == 1)
                #expect(
                    after.value(
                        "sync_server_http_requests_total",
                        ["route": "/v1/folders/{folder}/chunks/{hash}", "method": "PUT"]) == 3)
                // The refused request is counted with the status the error middleware answered.
                #expect(
                    after.value(
                        "sync_server_http_requests_total",
                        ["route": "/v1/folders/{folder}/changes", "status": "401"]) == 1)
                #expect(after.value("sync_server_http_requests_total", ["route": "unmatched", "status": "404"]) == 1)
                #expect(after.value("sync_server_auth_failures_total", ["reason": "unknown_or_expired_token"]) == 1)
                let bytesIn = Double(one.count + 2 * two.count)
                #expect(after.value("sync_server_chunk_bytes_received_total") == bytesIn)
                #expect(after.value("sync_server_chunk_bytes_sent_total") == Double(two.count))
                #expect(after.value("sync_server_stored_chunks") == 2)
                #expect(after.value("sync_server_stored_chunk_bytes") == Double(one.count + two.count))
                // Latency: one observation per commit request, in the route's histogram.
                #expect(
                    after.value("sync_server_http_request_duration_seconds_count", ["route": Self.commitRoute]) == 1)
                // No raw path (the folder's name, a chunk's hash) ever becomes a label value.
                for sample in after.samples {
                    #expect(!(sample.labels["route"] ?? "").contains("docs"), "\(sample)")
                }
            }
        }
    }

    @Test func badCredentialsAreCountedByReason() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let wrong = fixture.deviceID + "." + String(repeating: "0", count: 64)
                #expect(
                    try await client.send(.post, "/v1/auth/token", json: TokenRequest(credential: wrong)).status
                        == .unauthorized)
                #expect(
                    try await client.send(.post, "/v1/auth/token", json: TokenRequest(credential: "garbage")).status
                        == .unauthorized)
                #expect(try await client.changes(token: nil).status == .unauthorized)
                let metrics = try await client.scrape()
                #expect(metrics.value("sync_server_auth_failures_total", ["reason": "invalid_credential"]) == 1)
                #expect(metrics.value("sync_server_auth_failures_total", ["reason": "malformed_credential"]) == 1)
                #expect(metrics.value("sync_server_auth_failures_total", ["reason": "missing_header"]) == 1)
                #expect(
                    metrics.value("sync_server_http_requests_total", ["route": "/v1/auth/token", "status": "401"]) == 2)
            }
        }
    }

    /// Two servers in one process keep their own figures (no process-wide registry).
    @Test func eachServerHasItsOwnRegistry() async throws {
        try await Fixture.with { first in
            try await Fixture.with { second in
                try await first.server.makeApplication().test(.router) { client in
                    _ = try await client.token(first.credential)
                }
                try await second.server.makeApplication().test(.router) { client in
                    let metrics = try await client.scrape()
                    #expect(metrics.value("sync_server_http_requests_total", ["route": "/v1/auth/token"]) == nil)
                }
            }
        }
    }

    /// Over real HTTP, with the storage round of a running server: the round is counted, the
    /// stored-chunk gauges start from the chunk index, and the text has Prometheus's content type.
    @Test func liveServerAnswersPrometheusText() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.live) { client in
                try await client.waitForStorageRound()
                let token = try await client.token(fixture.credential)
                try await client.putChunk(Make.bytes("kept"), token: token)
                let response = try await client.send(.get, "/metrics")
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/plain; version=0.0.4")
                let metrics = try PrometheusText(parsing: response.text)
                #expect(metrics.value("sync_server_stored_chunks") == 1)
                #expect(metrics.value("sync_server_stored_chunk_bytes") == 4)
                #expect(metrics.value("sync_server_gc_runs_total", ["outcome": "failed"]) == 0)
                #expect(response.text.contains("# TYPE sync_server_http_request_duration_seconds histogram"))
            }
        }
    }
}

extension TestClientProtocol {
    /// `GET /metrics` (no token), parsed.
    func scrape() async throws -> PrometheusText {
        let response = try await send(.get, "/metrics")
        try #require(response.status == .ok, "GET /metrics: \(response.status)")
        return try PrometheusText(parsing: response.text)
    }

    /// Until a storage round (the server runs one at start) is counted.
    func waitForStorageRound() async throws {
        try await eventually("a storage round counted in /metrics", timeout: .seconds(60)) {
            (try await scrape().value("sync_server_gc_runs_total", ["outcome": "ok"]) ?? 0) >= 1
        }
    }
}
