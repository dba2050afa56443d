import Foundation
import GRDB

/// The express lane's side of the journal (see `TransferQueue+Express`): plain changes
/// journaled after a bulk batch was claimed, claimed by path.
extension JournalStore {
    /// Ready ops journaled at or after `since` that are not moves, newest first: during a
    /// burst (a 10,000-file copy still being journaled), the edit made last goes first; the
    /// bulk lane takes the rest in order.
    func expressCandidates(folder: String, since: Date, limit: Int, now: Date = Date()) throws -> [String] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT path FROM journal
                    WHERE folder_id = ? AND state = 'pending' AND next_attempt_at <= ? AND enqueued_at >= ?
                        AND move_from IS NULL
                    ORDER BY enqueued_at DESC LIMIT ?
                    """,
                arguments: [folder, now.timeIntervalSince1970, since.timeIntervalSince1970, limit]
            ).map { row in try row.indexValue("path", table: Self.table) }
        }
    }

    /// Claims these paths if they are still pending plain changes (a move or a claim by
    /// the bulk lane may have come in between); returns the ops claimed.
    func claim(folder: String, paths: [String]) throws -> [JournalOp] {
        try pool.write { db in
            let mark = try db.cachedStatement(sql: """
                UPDATE journal SET state = 'running'
                WHERE folder_id = ? AND path = ? AND state = 'pending' AND move_from IS NULL
                RETURNING attempts
                """)
            var ops: [JournalOp] = []
            for path in paths {
                guard let row = try Row.fetchOne(mark, arguments: [folder, path]) else { continue }
                ops.append(JournalOp(path: path, attempts: try row.indexValue("attempts", table: Self.table, path: path)))
            }
            return ops
        }
    }
}
