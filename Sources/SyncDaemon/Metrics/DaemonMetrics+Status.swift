import Prometheus
import SyncControl

extension DaemonMetrics {
    /// The Prometheus text: the counters, then gauges made from `status` (the same facts
    /// `syncctl status` shows) in a registry built for this scrape only, so a folder a
    /// reload removed, or an error gone, leaves no stale series behind.
    func exposition(status: StatusReport, inotifyWatches: Int? = InotifyWatchCount.current()) -> String {
        let gauges = PrometheusCollectorRegistry()
        func gauge(_ name: String, _ help: String, _ labels: [(String, String)], _ value: Int) {
            gauges.makeGauge(
                descriptor: MetricNameDescriptor(namespace: Self.namespace, metricName: name, unitName: "", helpText: help),
                labels: labels
            ).set(Double(value))
        }
        gauge("folders", "Folders this daemon syncs.", [], status.folders.count)
        if let inotifyWatches {
            gauge("inotify_watches", "inotify watches held now, all folders (from /proc/self/fdinfo).", [], inotifyWatches)
        }
        for folder in status.folders {
            let id = [("folder", folder.id)]
            gauge("pending_uploads", "Local changes waiting to be sent (queue depth).", id, folder.pendingUploads)
            gauge("pending_downloads", "Remote changes waiting to be applied.", id, folder.pendingDownloads)
            gauge("transfers", "Files being sent or received now.", id, folder.transferring.count)
            gauge(
                "watched_directories", "Directories watched at the folder's last full watch (as syncctl status shows).",
                id, folder.watchedDirectories)
            gauge("conflicts", "Unresolved conflict copies.", id, folder.conflicts)
            gauge("folder_state", "1 for the folder's state (idle, syncing, paused, offline, error, …).",
                  id + [("state", folder.state.rawValue)], 1)
            var byCode: [String: Int] = [:]
            for error in folder.errors { byCode[error.code ?? "unknown", default: 0] += 1 }
            for (code, count) in byCode.sorted(by: { $0.key < $1.key }) {
                gauge("errors", "Errors shown now, by code (docs/operations.md, Reading errors).",
                      id + [("code", code)], count)
            }
        }
        return registry.emitToString() + gauges.emitToString()
    }
}
