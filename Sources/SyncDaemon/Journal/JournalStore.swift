import Foundation
import GRDB

/// One pending or running piece of work: "make the server reflect this path".
public struct JournalOp: Sendable, Equatable {
    public var path: String
    public var attempts: Int
    /// The path's old name when it got here by a move (committed as a move).
    public var moveFrom: String? = nil
}

/// Local changes to journal: `paths` (a move's destination before its source), the old
/// name of those that got here by a move (new → old), and how long to wait before pushing.
public struct JournalRequest: Sendable, Equatable {
    public var paths: [String]
    public var moves: [String: String] = [:]
    public var delay: TimeInterval = 0
}

/// `journal`, the persisted pending work. Every decision to transfer is written here
/// before anyone is told it is queued; one row per (folder, path) so a second request
/// joins the first; a request for a running path marks it dirty so it runs once more
/// with the newer content (and, if the path got here by a move meanwhile, as that move:
/// `next_move_from`, which becomes `move_from` when the run ends; a delete held for approval
/// drops it). A row is `pending`, `running` or `held` (a delete wave
/// waiting for approval).
public struct JournalStore: Sendable {
    let pool: DatabasePool
    static let table = "journal"

    /// Records work for `paths`; `moves` gives the old name of paths that got here by a
    /// move (new → old). Returns the paths that were already running (now marked dirty:
    /// they will run again after the current attempt).
    @discardableResult
    public func enqueue(
        folder: String, paths: [String], moves: [String: String] = [:], now: Date = Date(), delay: TimeInterval = 0
    ) throws -> Set<String> {
        try enqueue(folder: folder, requests: [JournalRequest(paths: paths, moves: moves, delay: delay)], now: now)
    }

    /// Records several requests in one transaction (one fsync for the lot), in order:
    /// claimed in the order given (a move's destination before its source).
    @discardableResult
    public func enqueue(folder: String, requests: [JournalRequest], now: Date = Date()) throws -> Set<String> {
        guard requests.contains(where: { !$0.paths.isEmpty }) else { return [] }
        return try pool.write { db in
            let t = now.timeIntervalSince1970
            let insert = try db.cachedStatement(sql: """
                INSERT INTO journal (folder_id, path, op, state, dirty, attempts, next_attempt_at, enqueued_at, move_from)
                VALUES (?, ?, 'push', 'pending', 0, 0, ?, ?, ?)
                ON CONFLICT (folder_id, path) DO UPDATE SET
                    dirty = CASE WHEN state = 'running' THEN 1 ELSE dirty END,
                    move_from = CASE WHEN state = 'running' THEN move_from ELSE COALESCE(excluded.move_from, move_from) END,
                    next_move_from = CASE WHEN state = 'running' THEN COALESCE(excluded.move_from, next_move_from) ELSE next_move_from END
                RETURNING state
                """)
            // A directory moved away takes what is below it without an event of their own: an op
            // running below its old name (prepared while it was there) runs once more, after the
            // move (claimed in `enqueued_at` order: if the move commits, the files' rows go with
            // it and the rerun finds nothing to send).
            let below = try db.cachedStatement(sql: """
                UPDATE journal SET dirty = 1, next_attempt_at = MAX(next_attempt_at, ?), enqueued_at = MAX(enqueued_at, ?)
                WHERE \(IndexSQL.subtree) AND path != ? AND state = 'running' RETURNING path
                """)
            var running = Set<String>()
            var order = 0
            for request in requests {
                for path in request.paths {
                    let arguments: StatementArguments = [
                        folder, path, t + request.delay, t + Double(order) * 1e-6, request.moves[path],
                    ]
                    if try String.fetchOne(insert, arguments: arguments) == "running" { running.insert(path) }
                    order += 1
                }
                for source in Set(request.moves.values) {
                    let after: StatementArguments = [t + request.delay, t + Double(order) * 1e-6]
                    running.formUnion(try String.fetchAll(below, arguments: after + IndexSQL.subtree(folder: folder, source) + [source]))
                    order += 1
                }
            }
            return running
        }
    }

    /// Takes up to `limit` ready ops and marks them running.
    public func claim(folder: String, limit: Int, now: Date = Date()) throws -> [JournalOp] {
        try pool.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT path, attempts, move_from FROM journal
                    WHERE folder_id = ? AND state = 'pending' AND next_attempt_at <= ?
                    ORDER BY next_attempt_at, enqueued_at LIMIT ?
                    """,
                arguments: [folder, now.timeIntervalSince1970, limit])
            let ops = try rows.map { row in
                let path: String = try row.indexValue("path", table: Self.table)
                return JournalOp(
                    path: path, attempts: try row.indexValue("attempts", table: Self.table, path: path),
                    moveFrom: try row.indexValue("move_from", table: Self.table, path: path))
            }
            // Marked a few hundred at a time (one statement each, not one per op).
            for slice in IndexSQL.slices(ops.map(\.path)) {
                let (these, arguments) = IndexSQL.paths(slice, in: folder)
                try db.execute(sql: "UPDATE journal SET state = 'running' WHERE \(these)", arguments: arguments)
            }
            return ops
        }
    }
}
