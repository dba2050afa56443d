import Logging
import PostgresNIO
import ServiceLifecycle

/// Wakes this instance's long-polls when any instance commits (issue 10 point 4): a commit in
/// PostgreSQL notifies `channel` with its folder and new revision, delivered when it commits;
/// this service listens on one connection and publishes each to the `ChangeNotifier`.
///
/// A lost connection is made again (after `retryDelay`); once listening again it publishes
/// every folder's current revision, so a commit made while it was away still wakes whoever
/// waits (a spurious wake only makes a long-poll look at the feed once more).
struct PostgresCommitListener: Service {
    static let channel = "sync_commits"
    let store: PostgresMetadataStore
    let notifier: ChangeNotifier
    let logger: Logger
    var retryDelay: Duration = .seconds(1)
    /// Called each time it listens (again), with the listening backend's process id.
    var onListening: @Sendable (Int32) async -> Void = { _ in }

    /// `REV FOLDER` (folder ids hold no spaces, see `Identifiers`; the rev comes first anyway).
    static func payload(folder: String, rev: Int64) -> String { "\(rev) \(folder)" }

    static func parse(_ payload: String) -> (folder: String, rev: Int64)? {
        guard let space = payload.firstIndex(of: " "), let rev = Int64(payload[..<space]) else { return nil }
        let folder = String(payload[payload.index(after: space)...])
        return folder.isEmpty ? nil : (folder, rev)
    }

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await listenOnce() }
            } catch where !Task.isCancelled && !Task.isShuttingDownGracefully {
                logger.warning(
                    "lost the commit notifications of other instances; listening again",
                    metadata: ["error": "\((error as? PSQLError).map(PostgresMetadataStore.describe) ?? "\(error)")"])
                do { try await Task.sleep(for: retryDelay) } catch { return }
            }
        }
    }

    private func listenOnce() async throws {
        try await store.client.withConnection { connection in
            var backend: Int32 = 0
            for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: logger).decode(Int32.self) { backend = pid }
            try await connection.listen(on: Self.channel) { notifications in
                try await catchUp(connection)
                logger.info("listening for the commits of other instances", metadata: ["backend": "\(backend)"])
                await onListening(backend)
                for try await notification in notifications {
                    guard let (folder, rev) = Self.parse(notification.payload) else {
                        logger.warning("ignored a commit notification it cannot read", metadata: ["payload": "\(notification.payload)"])
                        continue
                    }
                    await notifier.publish(folder: folder, rev: rev)
                }
            }
        }
    }

    /// Publishes every folder's revision (commits made while nobody listened).
    private func catchUp(_ connection: PostgresConnection) async throws {
        var revs: [(String, Int64)] = []
        for try await row in try await connection.query("SELECT id, rev FROM folders", logger: logger).decode((String, Int64).self) {
            revs.append(row)
        }
        for (folder, rev) in revs { await notifier.publish(folder: folder, rev: rev) }
    }
}
