import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import SyncConfig

/// `metrics_listen`: HTTP/1.1 on a TCP address answering `GET /metrics` with the Prometheus
/// text of `DaemonMetrics` (the same Hummingbird stack as the control socket). A port that
/// cannot be bound is logged as an error and syncing goes on without metrics.
struct MetricsServer: Service {
    let listen: DaemonConfig.MetricsListen
    let metrics: DaemonMetrics
    let daemon: DaemonState
    let logger: Logger

    func run() async throws {
        let router = Router()
        let metrics = self.metrics, daemon = self.daemon
        router.get("/metrics") { _, _ in
            let text = metrics.exposition(status: try await daemon.report())
            return Response(
                status: .ok,
                headers: [.contentType: DaemonMetrics.contentType, .contentLength: String(text.utf8.count)],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        let listen = self.listen, logger = self.logger
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: "syncd"),
            onServerRunning: { _ in logger.info("serving metrics", metadata: ["address": "http://\(listen)/metrics"]) },
            logger: logger)
        do {
            try await application.run()
        } catch {
            logger.error(
                "cannot serve metrics on \(listen) (metrics_listen): \(error); syncing goes on without metrics")
            // Stay a service until shutdown: a missing metrics endpoint must not stop the daemon.
            do { try await gracefulShutdown() } catch { logger.debug("metrics service cancelled") }
        }
    }
}

extension MetricsServer: CustomStringConvertible {
    /// For the service group's log lines.
    var description: String { "MetricsServer(\(listen))" }
}
