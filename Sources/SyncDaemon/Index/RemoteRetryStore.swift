import Foundation
import GRDB
import SyncCore

/// `remote_retry`: remote entries that could not be applied (a full disk, a directory in
/// the way, a symlink in the path), kept with their backoff until a retry applies them or
/// a newer revision of the path does. The cursor moves on; nothing the server sent is
/// dropped. Each is shown in `path_errors` with its retry time, in the same transaction.
struct RemoteRetryStore: Sendable {
    let pool: DatabasePool
    static let table = "remote_retry"

    private var errors: PathErrorStore { PathErrorStore(pool: pool) }

    /// Keeps `failed` for a retry after `delay(attempts)`; a kept entry is replaced only
    /// by a newer revision of its path.
    func hold(folder: String, _ failed: [(entry: WireEntry, error: DaemonError)], delay: (Int) -> Double) throws {
        guard !failed.isEmpty else { return }
        try pool.write { db in try hold(folder: folder, failed, delay: delay, in: db) }
    }

    /// `hold` inside the caller's transaction.
    func hold(folder: String, _ failed: [(entry: WireEntry, error: DaemonError)], delay: (Int) -> Double, in db: Database) throws {
        let now = Date()
        let current = try db.cachedStatement(
            sql: "SELECT rev, attempts FROM remote_retry WHERE folder_id = ? AND path = ?")
        let put = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO remote_retry (folder_id, path, rev, entry, attempts, next_attempt_at, last_error)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for (entry, error) in failed {
            var attempts = 1
            if let row = try Row.fetchOne(current, arguments: [folder, entry.path]) {
                let rev: Int64 = try row.indexValue("rev", table: Self.table, path: entry.path)
                if rev > entry.rev { continue }
                attempts += try row.indexValue("attempts", table: Self.table, path: entry.path) as Int
            }
            let due = now.addingTimeInterval(delay(attempts - 1))
            let json = try IndexValue.jsonText(entry)
            try put.execute(arguments: [folder, entry.path, entry.rev, json, attempts, due.timeIntervalSince1970, error.description])
            try errors.show(folder: folder, path: entry.path, error: error, retryAt: due, origin: .remote, in: db)
        }
    }

    /// Kept entries whose retry is due (oldest revision first).
    func due(folder: String, now: Date = Date(), limit: Int = 10_000) throws -> [WireEntry] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT path, entry FROM remote_retry WHERE folder_id = ? AND next_attempt_at <= ? ORDER BY rev LIMIT ?
                    """,
                arguments: [folder, now.timeIntervalSince1970, limit]
            ).map { row in
                let path: String = try row.indexValue("path", table: Self.table)
                let json: String = try row.indexValue("entry", table: Self.table, path: path)
                return try IndexValue.json(WireEntry.self, from: json, table: Self.table, column: "entry", path: path)
            }
        }
    }

    /// `syncctl retry`: every kept entry not due yet (at `under` and below it, when given) is
    /// due now, its tries started over; returns how many.
    func retryNow(folder: String, under: String? = nil, now: Date = Date()) throws -> Int {
        let t = now.timeIntervalSince1970
        let (scope, scoped): (String, StatementArguments) =
            under.map { (IndexSQL.subtree, IndexSQL.subtree(folder: folder, $0)) } ?? ("folder_id = ?", [folder])
        return try pool.write { db in
            try db.execute(
                sql: "UPDATE remote_retry SET next_attempt_at = ?, attempts = 0 WHERE \(scope) AND next_attempt_at > ?",
                arguments: [t] + scoped + [t])
            let count = db.changesCount
            try db.execute(
                sql: "UPDATE path_errors SET retry_at = ? WHERE \(scope) AND origin = 'remote' AND retry_at > ?",
                arguments: [t] + scoped + [t])
            return count
        }
    }

    func count(folder: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM remote_retry WHERE folder_id = ?", arguments: [folder]) ?? 0
        }
    }

    /// `applied` went through at these revisions: kept entries of those paths that are
    /// no newer are done, and their errors with them.
    func clear(folder: String, applied: [(path: String, rev: Int64)]) throws {
        guard !applied.isEmpty else { return }
        try pool.write { db in
            // The common case, on every feed page: nothing is kept, nothing to look up per entry.
            let anyKept = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM remote_retry WHERE folder_id = ?)", arguments: [folder]) ?? false
            guard anyKept else { return }
            let kept = try db.cachedStatement(sql: "SELECT rev FROM remote_retry WHERE folder_id = ? AND path = ?")
            let drop = try db.cachedStatement(sql: "DELETE FROM remote_retry WHERE folder_id = ? AND path = ?")
            for (path, rev) in applied {
                guard let row = try Row.fetchOne(kept, arguments: [folder, path]) else { continue }
                let keptRev: Int64 = try row.indexValue("rev", table: Self.table, path: path)
                guard keptRev <= rev else { continue }
                try drop.execute(arguments: [folder, path])
                try errors.clear(folder: folder, path: path, in: db)
            }
        }
    }
}
