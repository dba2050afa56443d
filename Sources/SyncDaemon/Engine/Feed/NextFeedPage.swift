import SyncClient
import SyncCore

/// The next page of a feed that has more, asked for while the page before it is applied: a
/// catch-up of many pages (a second device's first sync of 100,000 files is ten) no longer
/// waits for each page's request in turn, the server's reading and encoding of 10,000
/// entries and the daemon's decoding of them. It is used only if the cursor stored after that
/// apply is the one it was asked from (`since`); otherwise (an apply that failed or paused,
/// a page read again) it is dropped. A page is a read of what the server held then: a later
/// one simply continues from its cursor.
struct NextFeedPage {
    let since: Int64
    private let task: Task<ChangesResponse, any Error>

    init(remote: RemoteClient, folder: String, since: Int64, limit: Int) {
        self.since = since
        task = Task { try await remote.changes(folder: folder, since: since, waitSeconds: 0, limit: limit) }
    }

    /// The page (or the request's error); cancelling the caller cancels the request.
    func page() async throws -> ChangesResponse {
        try await withTaskCancellationHandler { try await task.value } onCancel: { [task] in task.cancel() }
    }

    func cancel() { task.cancel() }
}
