import Hummingbird
import ServiceLifecycle
import SyncCore

/// `GET /v1/folders/{folder}/changes` (with long-poll) and `GET …/history`.
struct FeedRoutes {
    let metadata: any MetadataBackend
    let notifier: ChangeNotifier
    let metrics: ServerMetrics

    static let defaultLimit: Int64 = 1000
    static let maxLimit: Int64 = 10_000
    static let maxWait: Int64 = 60

    func register(on group: RouterGroup<ServerRequestContext>) {
        group.get("changes") { request, context in try await changes(request, context: context) }
        group.get("history") { request, context in try await history(request, context: context) }
    }

    func changes(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let folder = try context.grantedFolder()
        let since = try request.queryInt("since", default: 0, range: 0...Int64.max)
        let wait = try request.queryInt("wait", default: 0, range: 0...Self.maxWait)
        let limit = try request.queryInt("limit", default: Self.defaultLimit, range: 1...Self.maxLimit)
        let deadline = ContinuousClock.now + .seconds(wait)
        while true {
            guard let page = try await metadata.changes(folder: folder, since: since, limit: Int(limit)) else {
                throw APIError.forbidden("this device has no access to that folder")
            }
            let remaining = deadline - ContinuousClock.now
            guard page.entries.isEmpty, remaining > .zero, !Task.isCancelled, !Task.isShuttingDownGracefully else {
                return JSONResponse.make(writing: page, capacity: 64 + page.entries.count * 320)
            }
            let notifier = self.notifier
            let cursor = page.cursor
            // A graceful shutdown ends the wait at once (answered with the empty page).
            metrics.feedWaiters.increment()
            _ = await cancelWhenGracefulShutdown {
                await notifier.wait(folder: folder, beyond: cursor, timeout: remaining)
            }
            metrics.feedWaiters.decrement()
        }
    }

    func history(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let folder = try context.grantedFolder()
        try request.requireWellFormedQuery()
        guard let raw = request.uri.queryParameters.get("path") else {
            throw APIError.badRequest("query parameter 'path' is required")
        }
        let path: RelativePath
        do {
            path = try RelativePath(validating: raw)
        } catch {
            throw APIError.invalidPath("\(error)", cause: error)
        }
        let versions = try await metadata.history(folder: folder, path: path.string)
        let provenance = try await metadata.provenance(folder: folder, path: path.string)
        return try JSONResponse.make(HistoryResponse(versions: versions, provenance: provenance))
    }
}
