import Hummingbird
import NIOCore

/// `GET /metrics`: the Prometheus text of `ServerMetrics`, without auth (like `/v1/health`;
/// the figures name no device, folder or path).
struct MetricsRoute {
    let metrics: ServerMetrics

    func register(on router: Router<ServerRequestContext>) {
        let metrics = self.metrics
        router.get("/metrics") { _, _ in
            let text = metrics.exposition()
            return Response(
                status: .ok,
                headers: [.contentType: ServerMetrics.contentType, .contentLength: String(text.utf8.count)],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }
}
