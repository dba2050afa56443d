import Hummingbird

/// Builds the `/v1` router: health and token exchange without auth, every
/// folder route behind `AuthMiddleware`; all errors rendered as `ErrorBody` JSON.
struct ServerApplication {
    let server: SyncServer

    func buildRouter() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
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
        AuthRoutes(metadata: server.metadata, tokens: server.tokens, tokenLifetime: server.settings.tokenLifetime)
            .register(on: router)

        let folder = router.group("/v1/folders/{folder}").add(middleware: AuthMiddleware(tokens: server.tokens, metadata: server.metadata, inFlight: server.inFlight))
        ChunkRoutes(chunks: server.chunks).register(on: folder)
        CommitRoutes(metadata: server.metadata, notifier: server.notifier).register(on: folder)
        FeedRoutes(metadata: server.metadata, notifier: server.notifier).register(on: folder)
        return router
    }
}
