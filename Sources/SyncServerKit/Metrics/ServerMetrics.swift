import Prometheus

/// The server's Prometheus metrics, in a registry of its own (never the process-wide
/// `MetricsSystem`, which can be bootstrapped once per process while one process may run
/// many servers, as the test suites do). `GET /metrics` renders `registry` (decision 0018).
///
/// Counters only go up; the stored-chunk gauges are set from the chunk index at start and
/// after every storage round, and moved by uploads in between (approximate, see
/// docs/operations.md "Monitoring").
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry

    let commits: Counter
    let committedChanges: Counter
    let chunkBytesReceived: Counter
    let chunkBytesSent: Counter
    let chunksStored: Gauge
    let chunkBytesStored: Gauge
    let gcRoundsSucceeded: Counter
    let gcRoundsFailed: Counter
    let gcBytesReclaimed: Counter
    let gcChunksDropped: Counter
    let feedWaiters: Gauge

    static let namespace = "sync_server"

    /// Latency buckets: from a chunk lookup (milliseconds) to a long-poll (up to 60 s).
    static let latencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        .seconds(30), .seconds(60),
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        func counter(_ name: String, _ help: String, labels: [(String, String)] = []) -> Counter {
            registry.makeCounter(descriptor: Self.name(name, unit: "total", help: help), labels: labels)
        }
        func gauge(_ name: String, _ help: String) -> Gauge {
            registry.makeGauge(descriptor: Self.name(name, unit: "", help: help))
        }
        commits = counter("commits", "Commits answered (a commit of many changes counts once).")
        committedChanges = counter("committed_changes", "Changes in the commits answered.")
        chunkBytesReceived = counter("chunk_bytes_received", "Chunk bytes received in uploads (PUT chunk, chunk batches).")
        chunkBytesSent = counter("chunk_bytes_sent", "Chunk bytes sent in downloads (GET chunk, chunk fetches).")
        chunksStored = gauge("stored_chunks", "Chunks in the chunk index (approximate between storage rounds).")
        chunkBytesStored = gauge(
            "stored_chunk_bytes", "Bytes of the chunks in the chunk index (approximate between storage rounds).")
        gcRoundsSucceeded = counter("gc_runs", Self.gcRunsHelp, labels: [("outcome", "ok")])
        gcRoundsFailed = counter("gc_runs", Self.gcRunsHelp, labels: [("outcome", "failed")])
        gcBytesReclaimed = counter("gc_reclaimed_bytes", "Pack bytes freed by storage rounds (compaction and deleted packs).")
        gcChunksDropped = counter("gc_dropped_chunks", "Unreferenced chunks dropped by storage rounds.")
        feedWaiters = gauge("feed_waiters", "Change-feed requests waiting in a long-poll now.")
    }

    static let gcRunsHelp = "Storage rounds (retention, chunk GC, compaction) by outcome."

    /// `sync_server_<name>_<unit>`.
    static func name(_ name: String, unit: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: namespace, metricName: name, unitName: unit, helpText: help)
    }

    /// The Prometheus text exposition format (version 0.0.4).
    public func exposition() -> String { registry.emitToString() }

    /// The content type of `exposition()`.
    public static let contentType = "text/plain; version=0.0.4"
}
