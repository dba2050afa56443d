import Foundation
import GRDB

/// The express lane's side of the journal (see `TransferQueue+Express`): plain changes
/// journaled after a bulk batch was claimed, claimed by path.
extension JournalStore {
    /// Ready ops journaled at or after `since` that are not moves, of paths already in sync
    /// (`synced`: the edits lane) or not (the new-paths lane), newest first. A burst (a
    /// 10,000-file copy still being journaled) is mostly new files arriving after the edit a
    /// person just saved: it must not bury that edit. The bulk lane takes everything in order anyway.
    func expressCandidates(folder: String, since: Date, limit: Int, synced: Bool, now: Date = Date()) throws
        -> [(path: String, synced: Bool)]
    {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT j.path, b.path IS NOT NULL AS synced FROM journal j
                    LEFT JOIN base b ON b.folder_id = j.folder_id AND b.path = j.path AND b.deleted = 0
                    WHERE j.folder_id = ? AND j.state = 'pending' AND j.next_attempt_at <= ? AND j.enqueued_at >= ?
                        AND j.move_from IS NULL AND (b.path IS NOT NULL) = ?
                    ORDER BY j.enqueued_at DESC LIMIT ?
                    """,
                arguments: [folder, now.timeIntervalSince1970, since.timeIntervalSince1970, synced, limit]
            ).map { row in
                let path: String = try row.indexValue("path", table: Self.table)
                return (path, try row.indexValue("synced", table: Self.table, path: path))
            }
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
