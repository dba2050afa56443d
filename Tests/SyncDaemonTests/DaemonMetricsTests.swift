import SyncControl
import Testing
import TestSupport

@testable import SyncDaemon

/// syncd's Prometheus text: counters the parts move, gauges made from the status at each scrape.
@Suite struct DaemonMetricsTests {
    static func folder(
        _ id: String, state: FolderState = .idle, pendingUploads: Int = 0, errors: [PathErrorStatus] = []
    ) -> FolderStatus {
        FolderStatus(
            id: id, path: "/srv/\(id)", state: state, pendingUploads: pendingUploads, pendingDownloads: 0,
            transferring: [], conflicts: 0, errors: errors, lastSyncedAt: nil, remoteCursor: 0, watchedDirectories: 3)
    }

    static func report(_ folders: [FolderStatus]) -> StatusReport {
        StatusReport(daemon: .init(version: "test", pid: 1, uptimeS: 1), folders: folders)
    }

    @Test func errorsAreCountedByCodeAndQueueDepthByFolder() throws {
        let metrics = DaemonMetrics()
        let errors = [
            PathErrorStatus(path: "a", message: "full", retryAt: nil, code: "disk_full"),
            PathErrorStatus(path: "b", message: "full", retryAt: nil, code: "disk_full"),
            PathErrorStatus(path: "c", message: "old", retryAt: nil, code: nil),
        ]
        let text = metrics.exposition(
            status: Self.report([Self.folder("docs", state: .error, pendingUploads: 7, errors: errors), Self.folder("music")]),
            inotifyWatches: 6)
        let parsed = try PrometheusText(parsing: text)
        #expect(parsed.value("syncd_errors", ["folder": "docs", "code": "disk_full"]) == 2)
        #expect(parsed.value("syncd_errors", ["folder": "docs", "code": "unknown"]) == 1)
        #expect(parsed.value("syncd_errors", ["folder": "music"]) == nil)
        #expect(parsed.value("syncd_pending_uploads", ["folder": "docs"]) == 7)
        #expect(parsed.value("syncd_folder_state", ["folder": "docs", "state": "error"]) == 1)
        #expect(parsed.value("syncd_folder_state", ["folder": "music", "state": "idle"]) == 1)
        #expect(parsed.value("syncd_folders") == 2)
        #expect(parsed.value("syncd_inotify_watches") == 6)
        #expect(parsed.value("syncd_watched_directories", ["folder": "music"]) == 3)
    }

    /// A folder removed by a reload, or an error resolved, leaves no series behind.
    @Test func gaugesOfTheLastScrapeDoNotLinger() throws {
        let metrics = DaemonMetrics()
        let failing = [PathErrorStatus(path: "a", message: "no", retryAt: nil, code: "io")]
        _ = metrics.exposition(status: Self.report([Self.folder("docs", errors: failing), Self.folder("music")]))
        let parsed = try PrometheusText(parsing: metrics.exposition(status: Self.report([Self.folder("docs")])))
        #expect(parsed.value("syncd_errors") == nil)
        #expect(parsed.value("syncd_pending_uploads", ["folder": "music"]) == nil)
        #expect(parsed.value("syncd_folders") == 1)
    }

    @Test func countersAccumulate() throws {
        let metrics = DaemonMetrics()
        metrics.fileUploaded()
        metrics.fileUploaded()
        metrics.uploaded(bytes: 100)
        metrics.downloaded(files: 3, bytes: 4096)
        metrics.downloaded(files: 0, bytes: 4)
        metrics.scanned()
        metrics.inotifyOverflowed()
        let parsed = try PrometheusText(parsing: metrics.exposition(status: Self.report([])))
        #expect(parsed.value("syncd_files_uploaded_total") == 2)
        #expect(parsed.value("syncd_uploaded_bytes_total") == 100)
        #expect(parsed.value("syncd_files_downloaded_total") == 3)
        #expect(parsed.value("syncd_downloaded_bytes_total") == 4100)
        #expect(parsed.value("syncd_scans_total") == 1)
        #expect(parsed.value("syncd_inotify_overflows_total") == 1)
    }
}
