import Hummingbird

/// Builds the `/v1` router: health, `/metrics` and token exchange without auth, every
/// folder route behind `AuthMiddleware`; all errors rendered as `ErrorBody` JSON, every
/// request counted (`RequestMetricsMiddleware`).
struct ServerApplication {
    let server: SyncServer

    func buildRouter() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        // Outermost: it sees the status ErrorMiddleware turned every error into.
        router.add(middleware: RequestMetricsMiddleware(metrics: server.metrics))
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: LogRequestsMiddleware(.debug))

        router.get("/v1/health") { _, _ in
            try JSONResponse.make(["status": "ok"])
        }
        let readiness = ReadinessCheck(
            metadata: server.metadata, packsDir: server.chunks.packsDir, objectStore: server.settings.objectStore)
        let logger = server.logger
        router.get("/v1/ready") { _, _ in
            if let problem = await readiness.problem() {
                logger.error("not ready: \(problem.store): \(problem.detail)")
                throw APIError.notReady(problem.store)
            }
            return try JSONResponse.make(["status": "ready"])
        }
        MetricsRoute(metrics: server.metrics).register(on: router)
        AuthRoutes(
            metadata: server.metadata, tokens: server.tokens, tokenLifetime: server.settings.tokenLifetime,
            metrics: server.metrics
        ).register(on: router)

        let folder = router.group("/v1/folders/{folder}").add(
            middleware: AuthMiddleware(
                tokens: server.tokens, metadata: server.metadata, inFlight: server.inFlight, metrics: server.metrics))
        ChunkRoutes(chunks: server.chunks, metrics: server.metrics).register(on: folder)
        CommitRoutes(metadata: server.metadata, notifier: server.notifier, metrics: server.metrics).register(on: folder)
        FeedRoutes(metadata: server.metadata, notifier: server.notifier, metrics: server.metrics).register(on: folder)
        return router
    }
}
