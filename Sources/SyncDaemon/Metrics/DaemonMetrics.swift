import Prometheus

/// syncd's Prometheus metrics: counters the engines move as things happen, in a registry of
/// this object's own (never the process-wide `MetricsSystem`; decision 0018). One object per
/// daemon, passed to the parts that count; a part built without one (tests) counts into a
/// registry nobody reads. What the status already knows (queue depth, errors by code,
/// watches) is read from it at each scrape (`DaemonMetrics+Status`).
public final class DaemonMetrics: Sendable {
    let registry: PrometheusCollectorRegistry

    let filesUploaded: Counter
    let bytesUploaded: Counter
    let filesDownloaded: Counter
    let bytesDownloaded: Counter
    let fullScans: Counter
    let inotifyOverflows: Counter

    static let namespace = "syncd"

    public init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        func counter(_ name: String, _ unit: String, _ help: String, labels: [(String, String)] = []) -> Counter {
            registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    namespace: Self.namespace, metricName: name, unitName: unit, helpText: help),
                labels: labels)
        }
        filesUploaded = counter("files_uploaded", "total", "Files whose new content the server accepted (commits of this device).")
        bytesUploaded = counter("uploaded", "bytes_total", "Chunk bytes sent to the server (chunks it already had are not sent).")
        filesDownloaded = counter("files_downloaded", "total", "Files written from the server's changes.")
        bytesDownloaded = counter(
            "downloaded", "bytes_total", "Chunk bytes received from the server (chunks found in local files are not fetched).")
        fullScans = counter("scans", "total", "Full scans of a folder (at start, periodic, asked for, after lost inotify events).")
        inotifyOverflows = counter(
            "inotify_overflows", "total", "Times inotify events were lost (queue overflow): each leads to a rescan.")
    }

    /// A file change committed (not a delete, a directory or a symlink).
    func fileUploaded() { filesUploaded.increment() }
    func uploaded(bytes: Int) { bytesUploaded.increment(by: Int64(bytes)) }
    func downloaded(files: Int, bytes: Int64) {
        filesDownloaded.increment(by: Int64(files))
        bytesDownloaded.increment(by: bytes)
    }
    func scanned() { fullScans.increment() }
    func inotifyOverflowed() { inotifyOverflows.increment() }

    /// The content type of the text `GET /metrics` answers with.
    public static let contentType = "text/plain; version=0.0.4"
}
