import Foundation
import GRDB

/// One path's rows across the journal, errors, remote retries and conflicts, read in one
/// transaction for `syncctl explain`.
struct PathRows: Sendable, Equatable {
    var journal: (state: String, attempts: Int, nextAttemptAt: Date)?
    var error: PathErrorStore.Entry?
    var remoteRetryRev: Int64?
    var conflict: (remoteRev: Int64, detectedAt: Date)?

    static func == (a: PathRows, b: PathRows) -> Bool {
        a.journal?.state == b.journal?.state && a.error == b.error && a.remoteRetryRev == b.remoteRetryRev
            && a.conflict?.remoteRev == b.conflict?.remoteRev
    }
}

extension IndexStore {
    func rows(folder: String, path: String) throws -> PathRows {
        try pool.read { db in
            var rows = PathRows()
            let arguments: StatementArguments = [folder, path]
            if let row = try Row.fetchOne(
                db, sql: "SELECT state, attempts, next_attempt_at FROM journal WHERE folder_id = ? AND path = ?", arguments: arguments)
            {
                let table = JournalStore.table
                rows.journal = (
                    try row.indexValue("state", table: table, path: path), try row.indexValue("attempts", table: table, path: path),
                    Date(timeIntervalSince1970: try row.indexValue("next_attempt_at", table: table, path: path))
                )
            }
            if let row = try Row.fetchOne(
                db, sql: "SELECT message, retry_at, code, cause FROM path_errors WHERE folder_id = ? AND path = ?", arguments: arguments)
            {
                let table = PathErrorStore.table
                let retryAt: Double? = try row.indexValue("retry_at", table: table, path: path)
                rows.error = PathErrorStore.Entry(
                    path: path, message: try row.indexValue("message", table: table, path: path),
                    retryAt: retryAt.map { Date(timeIntervalSince1970: $0) }, code: try row.indexValue("code", table: table, path: path),
                    cause: try row.indexValue("cause", table: table, path: path))
            }
            if let row = try Row.fetchOne(db, sql: "SELECT rev FROM remote_retry WHERE folder_id = ? AND path = ?", arguments: arguments) {
                rows.remoteRetryRev = try row.indexValue("rev", table: RemoteRetryStore.table, path: path)
            }
            if let row = try Row.fetchOne(
                db, sql: "SELECT remote_rev, detected_at FROM conflicts WHERE folder_id = ? AND path = ?", arguments: arguments)
            {
                let table = ConflictStore.table
                rows.conflict = (
                    try row.indexValue("remote_rev", table: table, path: path),
                    Date(timeIntervalSince1970: try row.indexValue("detected_at", table: table, path: path))
                )
            }
            return rows
        }
    }
}
