import Hummingbird
import Logging
import SyncCore

/// `POST /v1/folders/{folder}/commit`.
struct CommitRoutes {
    let metadata: any MetadataBackend
    let notifier: ChangeNotifier
    let metrics: ServerMetrics

    func register(on group: RouterGroup<ServerRequestContext>) {
        group.post("commit") { request, context in try await commit(request, context: context) }
    }

    func commit(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let folder = try context.grantedFolder()
        let session = try context.requireSession()
        let body = try await request.readJSON(CommitRequest.self, limit: RequestBodyLimit.commit)
        let checked = try CommitValidator.check(body)
        let idempotency = try CommitValidator.idempotency(of: body, checked: checked)
        let started = ContinuousClock.now
        // The chunks are checked inside the commit's transaction (see MetadataStore.commit).
        guard
            let response = try await metadata.commit(
                folder: folder, device: session.deviceID, changes: checked.changes, idempotency: idempotency,
                checkingChunksOf: checked)
        else { throw APIError.forbidden("this device has no access to that folder") }
        metrics.committed(changes: checked.changes.count)
        if response.results.contains(where: { $0.status == .ok }) {
            await notifier.publish(folder: folder, rev: response.folderRev)
        }
        context.logger.debug(
            "commit",
            metadata: [
                "folder": "\(folder)", "device": "\(session.deviceID)", "changes": "\(checked.changes.count)",
                "folder_rev": "\(response.folderRev)", "transaction": "\(ContinuousClock.now - started)",
            ])
        return JSONResponse.make(writing: response, capacity: 64 + response.results.count * 64)
    }
}
