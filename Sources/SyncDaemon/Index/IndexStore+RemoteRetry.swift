import Foundation
import GRDB
import SyncCore

/// Remote entries that could not be applied (a full disk, a directory in the way, a
/// symlink in the path): kept with their backoff until a retry applies them or a newer
/// revision of the path does. The cursor moves on; nothing the server sent is dropped.
extension IndexStore {
    /// Keeps `failed` for a retry after `delay(attempts)`; a kept entry is replaced only
    /// by a newer revision of its path.
    func holdForRetry(folder: String, _ failed: [(entry: WireEntry, message: String)], delay: (Int) -> Double) throws {
        guard !failed.isEmpty else { return }
        let now = Date()
        let encoder = JSONEncoder()
        try pool.write { db in
            let current = try db.cachedStatement(
                sql: "SELECT rev, attempts FROM remote_retry WHERE folder_id = ? AND path = ?")
            let put = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO remote_retry (folder_id, path, rev, entry, attempts, next_attempt_at, last_error)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            let show = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO path_errors (folder_id, path, message, retry_at) VALUES (?, ?, ?, ?)
                """)
            for (entry, message) in failed {
                let row = try Row.fetchOne(current, arguments: [folder, entry.path])
                if let row, (row["rev"] as Int64) > entry.rev { continue }
                let attempts = (row?["attempts"] as Int?).map { $0 + 1 } ?? 1
                let due = now.addingTimeInterval(delay(attempts - 1)).timeIntervalSince1970
                let json = String(decoding: try encoder.encode(entry), as: UTF8.self)
                try put.execute(arguments: [folder, entry.path, entry.rev, json, attempts, due, message])
                try show.execute(arguments: [folder, entry.path, message, due])
            }
        }
    }

    /// Kept entries whose retry is due (oldest revision first).
    func dueRetries(folder: String, now: Date = Date(), limit: Int = 10_000) throws -> [WireEntry] {
        let decoder = JSONDecoder()
        return try pool.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT entry FROM remote_retry WHERE folder_id = ? AND next_attempt_at <= ? ORDER BY rev LIMIT ?
                    """,
                arguments: [folder, now.timeIntervalSince1970, limit]
            ).map { try decoder.decode(WireEntry.self, from: Data($0.utf8)) }
        }
    }

    func retryCount(folder: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM remote_retry WHERE folder_id = ?", arguments: [folder]) ?? 0
        }
    }

    /// `applied` went through at these revisions: kept entries of those paths that are
    /// no newer are done, and their errors with them.
    func clearRetries(folder: String, applied: [(path: String, rev: Int64)]) throws {
        guard !applied.isEmpty else { return }
        try pool.write { db in
            // The common case, on every feed page: nothing is kept, nothing to look up per entry.
            let anyKept = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM remote_retry WHERE folder_id = ?)", arguments: [folder]) ?? false
            guard anyKept else { return }
            let kept = try db.cachedStatement(sql: "SELECT rev FROM remote_retry WHERE folder_id = ? AND path = ?")
            let drop = try db.cachedStatement(sql: "DELETE FROM remote_retry WHERE folder_id = ? AND path = ?")
            let clear = try db.cachedStatement(sql: "DELETE FROM path_errors WHERE folder_id = ? AND path = ?")
            for (path, rev) in applied {
                guard let keptRev = try Int64.fetchOne(kept, arguments: [folder, path]), keptRev <= rev else { continue }
                try drop.execute(arguments: [folder, path])
                try clear.execute(arguments: [folder, path])
            }
        }
    }
}
