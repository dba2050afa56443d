import Foundation
import SyncClient
import Testing
import TestSupport

/// Prometheus metrics of real processes: syncd's opt-in `metrics_listen` and sync-server's
/// `GET /metrics`, scraped over HTTP after files were synced.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct MetricsTests {
    @Test func daemonAndServerCountWhatWasSynced() async throws {
        let tmp = try TemporaryDirectory("metrics")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        defer { server.stop() }
        let credential = try await server.provision(folder: "docs", device: "laptop")
        try await server.start()
        let port = try freePort()
        let daemon = try DaemonProcess(
            dir: try tmp.sub("device"), folderID: "docs", serverURL: server.url, credential: credential,
            extraDaemonConfig: "metrics_listen = \"127.0.0.1:\(port)\"")
        defer { daemon.stop() }
        try await daemon.start()
        let metricsURL = "http://127.0.0.1:\(port)/metrics"

        let before = try await Self.scrape(metricsURL)
        #expect(before.value("syncd_files_uploaded_total") == 0)
        #expect(before.value("syncd_watched_directories", ["folder": "docs"]) == 1)
        #expect(before.value("syncd_inotify_watches") == 1)

        let big = pseudoRandomBytes(count: 3 << 20, seed: 11)
        try writeFile(daemon.path("one.txt"), "one")
        try writeFile(daemon.path("two.txt"), "two, a little longer")
        try FileManager.default.createDirectory(atPath: daemon.path("sub"), withIntermediateDirectories: true)
        try writeFile(daemon.path("sub/big.bin"), big)
        var last: PrometheusText?
        let client = server.client(credential: credential)
        do {
            try await eventually("syncd's /metrics shows three files uploaded, nothing pending and the folder idle", timeout: .seconds(60)) {
                // The feed read to its end first: what it brings back is looked at after.
                let head = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
                guard try await daemon.status()?.remoteCursor == head else { return false }
                let metrics = try await Self.scrape(metricsURL)
                last = metrics
                return (metrics.value("syncd_files_uploaded_total") ?? 0) >= 3
                    && metrics.value("syncd_pending_uploads", ["folder": "docs"]) == 0
                    && metrics.value("syncd_transfers", ["folder": "docs"]) == 0
                    // (With nothing pending it can still be busy a moment: a PostgreSQL pass
                    // here scraped it not idle right after.)
                    && metrics.value("syncd_folder_state", ["folder": "docs", "state": "idle"]) == 1
            }
        } catch {
            throw TestFailure("\(error); last scrape: \(last.map { "\($0.samples)" } ?? "none")\n--- syncd log tail:\n\(daemon.log.suffix(2000))")
        }
        let after = try await Self.scrape(metricsURL)
        // Every chunk of the new content was sent (the server had none of them); a file read
        // while still being written may have sent a little more.
        let content = Double(3 + 20 + big.count)
        #expect(after.value("syncd_uploaded_bytes_total").map { $0 >= content } == true)
        // The new directory is watched: the kernel's count follows it (the status's is the
        // count of the folder's last full watch).
        #expect(after.value("syncd_inotify_watches") == 2)
        #expect(Double(try daemon.inotifyWatchCount()) == after.value("syncd_inotify_watches"))
        #expect(after.value("syncd_scans_total").map { $0 >= 1 } == true)
        #expect(
            after.value("syncd_folder_state", ["folder": "docs", "state": "idle"]) == 1,
            "\(after.samples.filter { $0.name == "syncd_folder_state" && $0.value != 0 })")
        #expect(after.value("syncd_errors") == nil, "errors: \(after.samples.filter { $0.name == "syncd_errors" })")

        // A second device downloads the three files: its own metrics count them.
        let betaCredential = try await server.admin(["device", "add", "--name", "beta", "--folder", "docs"])
        let betaPort = try freePort()
        let beta = try DaemonProcess(
            dir: try tmp.sub("beta"), folderID: "docs", serverURL: server.url, credential: betaCredential,
            extraDaemonConfig: "metrics_listen = \"127.0.0.1:\(betaPort)\"")
        defer { beta.stop() }
        try await beta.start()
        let betaURL = "http://127.0.0.1:\(betaPort)/metrics"
        try await eventually("beta's /metrics shows three files downloaded", timeout: .seconds(60)) {
            (try await Self.scrape(betaURL).value("syncd_files_downloaded_total") ?? 0) >= 3
        }
        let downloaded = try await Self.scrape(betaURL)
        #expect(downloaded.value("syncd_downloaded_bytes_total").map { $0 >= content } == true)
        #expect(downloaded.value("syncd_files_uploaded_total") == 0)
        #expect(try localTree(beta.folderPath)["sub/big.bin"] == contentHash(big))

        // The server saw the same: its commits and the chunk bytes it received.
        let served = try await Self.scrape(server.url + "/metrics")
        #expect(served.value("sync_server_commits_total").map { $0 >= 1 } == true)
        #expect(served.value("sync_server_chunk_bytes_received_total") == after.value("syncd_uploaded_bytes_total"))
        #expect(served.value("sync_server_chunk_bytes_sent_total").map { $0 >= content } == true)
        #expect(
            served.value(
                "sync_server_http_requests_total",
                ["route": "/v1/folders/{folder}/commit", "method": "POST", "status": "200"]
            ).map { $0 >= 1 } == true)
    }

    /// A metrics port that is taken (here: the server's own) is logged, and syncing goes on.
    @Test func aTakenMetricsPortDoesNotStopSyncing() async throws {
        let tmp = try TemporaryDirectory("metrics-port-taken")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        defer { server.stop() }
        let credential = try await server.provision(folder: "docs", device: "laptop")
        try await server.start()
        let daemon = try DaemonProcess(
            dir: try tmp.sub("device"), folderID: "docs", serverURL: server.url, credential: credential,
            extraDaemonConfig: "metrics_listen = \"127.0.0.1:\(server.port)\"")
        defer { daemon.stop() }
        try await daemon.start()
        try await eventually("the log says the metrics port cannot be served") {
            daemon.log.contains("cannot serve metrics on 127.0.0.1:\(server.port)")
        }
        try writeFile(daemon.path("still.txt"), "still syncing")
        try await eventually("the file reaches the server", timeout: .seconds(30)) {
            try await server.client(credential: credential).tree(folder: "docs")["still.txt"]?.contentHash
                == contentHash("still syncing")
        }
        #expect(daemon.isRunning)
    }

    static func scrape(_ url: String) async throws -> PrometheusText {
        let (status, body) = try await RemoteClient.probe(url)
        guard status == 200 else { throw TestFailure("GET \(url): \(status)") }
        return try PrometheusText(parsing: String(decoding: body, as: UTF8.self))
    }
}
