import Foundation
import GRDB

/// `syncctl retry`: the pushes waiting out a backoff are due now, and paths whose push
/// failed for good (shown until they change) are pushed once more: the user fixed what was
/// wrong without touching the file (a server limit raised, a full disk emptied).
extension JournalStore {
    /// Returns how many paths were made due or journaled again. Their tries start over (a
    /// path that fails again gets the whole backoff and patience), and each shown error says
    /// it is being retried now. Errors of remote changes are not pushes: `RemoteRetryStore`
    /// has their retries.
    public func retryNow(folder: String, now: Date = Date()) throws -> Int {
        let t = now.timeIntervalSince1970
        return try pool.write { db in
            try db.execute(
                sql: """
                    UPDATE journal SET next_attempt_at = ?, attempts = 0
                    WHERE folder_id = ? AND state = 'pending' AND next_attempt_at > ?
                    """,
                arguments: [t, folder, t])
            var count = db.changesCount
            let failed = try String.fetchAll(
                db, sql: "SELECT path FROM path_errors WHERE folder_id = ? AND origin = 'push' AND retry_at IS NULL",
                arguments: [folder])
            let push = try db.cachedStatement(sql: """
                INSERT INTO journal (folder_id, path, op, state, dirty, attempts, next_attempt_at, enqueued_at, move_from)
                VALUES (?, ?, 'push', 'pending', 0, 0, ?, ?, NULL)
                ON CONFLICT (folder_id, path) DO UPDATE SET dirty = CASE WHEN state = 'running' THEN 1 ELSE dirty END
                """)
            for (i, path) in failed.enumerated() { try push.execute(arguments: [folder, path, t, t + Double(i) * 1e-6]) }
            count += failed.count
            try db.execute(
                sql: "UPDATE path_errors SET retry_at = ? WHERE folder_id = ? AND origin = 'push' AND (retry_at IS NULL OR retry_at > ?)",
                arguments: [t, folder, t])
            return count
        }
    }
}
