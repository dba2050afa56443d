import Foundation
import GRDB
import SyncCore

/// `syncctl retry`: the pushes waiting out a backoff are due now, and paths whose push
/// failed for good (shown until they change) are pushed once more: the user fixed what was
/// wrong without touching the file (a server limit raised, a full disk emptied).
extension JournalStore {
    /// Returns how many paths were made due or journaled again. Their tries start over (a
    /// path that fails again gets the whole backoff and patience), and each shown error says
    /// it is being retried now. A failed path `isIgnored` says the rules now skip is not
    /// pushed (that would upload, or delete, what the user has just excluded): its error is
    /// dropped. A path whose delete is held for approval stays held. Errors of remote changes
    /// are not pushes: `RemoteRetryStore` has their retries.
    /// `isIgnored` gets the path and whether it was a directory when last synced. `under`:
    /// only that path and what is below it (`syncctl retry --path`).
    public func retryNow(folder: String, under: String? = nil, now: Date = Date(), isIgnored: (String, Bool) -> Bool) throws -> Int {
        let t = now.timeIntervalSince1970
        return try pool.write { db in
            var within = ""
            var withinArguments: StatementArguments = []
            if let under {
                // The moves away from the subtree too: a departure made due alone would go up
                // first, as a delete, and its move as new content.
                within = " AND (path = ? OR (path >= ? AND path < ?) OR move_from = ? OR (move_from >= ? AND move_from < ?))"
                withinArguments = [under, under + "/", under + "0", under, under + "/", under + "0"]
            }
            try db.execute(
                sql: "UPDATE journal SET next_attempt_at = ?, attempts = 0 WHERE folder_id = ? AND state = 'pending' AND next_attempt_at > ?"
                    + within,
                arguments: [t, folder, t] + withinArguments)
            var count = db.changesCount
            // Those running now start their tries over too if they fail (the queue's own count,
            // read at their claim, is reset by `TransferQueue.retryNow`).
            try db.execute(
                sql: "UPDATE journal SET attempts = 0 WHERE folder_id = ? AND state = 'running'" + within,
                arguments: [folder] + withinArguments)
            let failed = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.path, b.kind = 'directory' AS was_directory FROM path_errors e
                    LEFT JOIN base b ON b.folder_id = e.folder_id AND b.path = e.path
                    WHERE e.folder_id = ? AND e.origin = 'push' AND e.retry_at IS NULL
                    AND NOT EXISTS (SELECT 1 FROM journal j WHERE j.folder_id = e.folder_id AND j.path = e.path AND j.state = 'held')
                    ORDER BY e.path
                    """,
                arguments: [folder]
            ).map { row -> (String, Bool) in
                let path: String = try row.indexValue("path", table: PathErrorStore.table)
                let wasDirectory: Bool? = try row.indexValue("was_directory", table: PathErrorStore.table, path: path)
                return (path, wasDirectory ?? false)
            }.filter { failed in under.map { RelativePath.isWithin(failed.0, $0) } ?? true }
            let push = try db.cachedStatement(sql: Self.lookAgain)
            let shownAsRetried = try db.cachedStatement(sql: "UPDATE path_errors SET retry_at = ? WHERE folder_id = ? AND path = ?")
            let forget = try db.cachedStatement(sql: "DELETE FROM path_errors WHERE folder_id = ? AND path = ?")
            for (i, (path, wasDirectory)) in failed.enumerated() {
                if isIgnored(path, wasDirectory) {
                    try forget.execute(arguments: [folder, path])
                    continue
                }
                try push.execute(arguments: [folder, path, t, t + Double(i) * 1e-6])
                try shownAsRetried.execute(arguments: [t, folder, path])
                count += 1
            }
            try showDueNow(folder: folder, at: t, in: db)
            return count
        }
    }

    /// Pending ops waiting out a backoff after failing with `code` (their shown error) are due
    /// now; their tries go on counting. Returns how many.
    func dueNow(folder: String, failedWith code: DaemonError.Code, now: Date = Date()) throws -> Int {
        let t = now.timeIntervalSince1970
        return try pool.write { db in
            try db.execute(
                sql: """
                    UPDATE journal SET next_attempt_at = ?
                    WHERE folder_id = ? AND state = 'pending' AND next_attempt_at > ?
                    AND path IN (SELECT path FROM path_errors WHERE folder_id = ? AND code = ?)
                    """,
                arguments: [t, folder, t, folder, code.rawValue])
            let count = db.changesCount
            try showDueNow(folder: folder, code: code, at: t, in: db)
            return count
        }
    }

    /// The shown errors of pending pushes due now (with `code`, when given) whose retry was
    /// later say it is now.
    private func showDueNow(folder: String, code: DaemonError.Code? = nil, at t: Double, in db: Database) throws {
        try db.execute(
            sql: """
                UPDATE path_errors SET retry_at = ? WHERE folder_id = ? AND origin = 'push' AND retry_at > ?
                AND (? IS NULL OR code = ?)
                AND path IN (SELECT path FROM journal WHERE folder_id = ? AND state = 'pending' AND next_attempt_at <= ?)
                """,
            arguments: [t, folder, t, code?.rawValue, code?.rawValue, folder, t])
    }
}
