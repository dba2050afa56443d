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

/// The persisted journal. Every decision to transfer is written here before
/// anyone is told it is queued; one row per (folder, path) so a second request
/// joins the first; a request for a running path marks it dirty so it runs
/// once more with the newer content.
extension IndexStore {
    /// Records work for `paths`. Returns the paths that were already running
    /// (now marked dirty: they will run again after the current attempt).
    @discardableResult
    /// `moves` gives the old name of paths that got here by a move (new → old).
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
                    move_from = CASE WHEN state = 'running' THEN move_from ELSE COALESCE(excluded.move_from, move_from) END
                RETURNING state
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
            let mark = try db.cachedStatement(sql: "UPDATE journal SET state = 'running' WHERE folder_id = ? AND path = ?")
            return try rows.map { row in
                let op = JournalOp(path: row["path"], attempts: row["attempts"], moveFrom: row["move_from"])
                try mark.execute(arguments: [folder, op.path])
                return op
            }
        }
    }

    /// Ends the attempt of `done` paths and applies the index changes it
    /// produced, in one transaction. Paths that became dirty meanwhile go back
    /// to pending and are returned.
    public func finish(folder: String, done: [String], update: IndexUpdateBox) throws -> Set<String> {
        try pool.write { db in
            try records.apply(folder: folder, update.value, in: db)
            // A rerun pushes the path's state as it is then: the move (if any) is done.
            let rerun = try db.cachedStatement(sql: """
                UPDATE journal SET state = 'pending', dirty = 0, attempts = 0, move_from = NULL
                WHERE folder_id = ? AND path = ? AND dirty = 1 RETURNING path
                """)
            let delete = try db.cachedStatement(sql: "DELETE FROM journal WHERE folder_id = ? AND path = ? AND dirty = 0")
            let clearError = try db.cachedStatement(sql: "DELETE FROM path_errors WHERE folder_id = ? AND path = ?")
            var again = Set<String>()
            for path in done {
                // Clean rows end here; dirty ones go back to pending for one more run.
                try delete.execute(arguments: [folder, path])
                if try String.fetchOne(rerun, arguments: [folder, path]) != nil { again.insert(path) }
                try clearError.execute(arguments: [folder, path])
            }
            return again
        }
    }

    /// Puts a failed attempt back with a retry time, and shows the error.
    public func reschedule(folder: String, paths: [String], error: String, retryAt: Date) throws {
        try pool.write { db in
            let update = try db.cachedStatement(sql: """
                UPDATE journal SET state = 'pending', dirty = 0, attempts = attempts + 1,
                next_attempt_at = ?, last_error = ? WHERE folder_id = ? AND path = ?
                """)
            let showError = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO path_errors (folder_id, path, message, retry_at) VALUES (?, ?, ?, ?)
                """)
            for path in paths {
                try update.execute(arguments: [retryAt.timeIntervalSince1970, error, folder, path])
                try showError.execute(arguments: [folder, path, error, retryAt.timeIntervalSince1970])
            }
        }
    }

    /// Puts claimed ops back, due now, without counting an attempt (they wait for
    /// a move in the same batch); `forgetMove` ones will push as plain changes.
    public func release(folder: String, paths: [String], forgetMove: Set<String> = []) throws {
        try pool.write { db in
            let update = try db.cachedStatement(sql: """
                UPDATE journal SET state = 'pending', dirty = 0,
                    move_from = CASE WHEN ? THEN NULL ELSE move_from END
                WHERE folder_id = ? AND path = ?
                """)
            for path in paths { try update.execute(arguments: [forgetMove.contains(path), folder, path]) }
        }
    }

    /// Gives up on paths (permanent error): the error stays visible until the path changes again.
    public func fail(folder: String, paths: [String], error: String) throws {
        try pool.write { db in
            let showError = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO path_errors (folder_id, path, message, retry_at) VALUES (?, ?, ?, NULL)
                """)
            let delete = try db.cachedStatement(sql: "DELETE FROM journal WHERE folder_id = ? AND path = ?")
            for path in paths {
                try showError.execute(arguments: [folder, path, error])
                try delete.execute(arguments: [folder, path])
            }
        }
    }

    /// Parks deletes that wait for `syncctl approve-deletes` (state `held`).
    public func hold(folder: String, paths: [String]) throws {
        try pool.write { db in
            let update = try db.cachedStatement(
                sql: "UPDATE journal SET state = 'held', dirty = 0 WHERE folder_id = ? AND path = ?")
            for path in paths { try update.execute(arguments: [folder, path]) }
        }
    }

    /// Releases held deletes; returns how many.
    @discardableResult
    public func releaseHeld(folder: String) throws -> Int {
        try pool.write { db in
            try db.execute(sql: "UPDATE journal SET state = 'pending' WHERE folder_id = ? AND state = 'held'", arguments: [folder])
            return db.changesCount
        }
    }

    public func heldCount(folder: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal WHERE folder_id = ? AND state = 'held'", arguments: [folder]) ?? 0
        }
    }

    /// After a crash or restart: running work becomes pending and is due now.
    public func resumeInterrupted(now: Date = Date()) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE journal SET state = 'pending', dirty = 0, next_attempt_at = ? WHERE state = 'running' OR state = 'pending'",
                arguments: [now.timeIntervalSince1970])
        }
    }

    public func pendingCount(folder: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal WHERE folder_id = ?", arguments: [folder]) ?? 0
        }
    }

    /// When the earliest op in backoff becomes due, if any.
    public func nextDue(folder: String) throws -> Date? {
        try pool.read { db in
            try Double.fetchOne(
                db, sql: "SELECT MIN(next_attempt_at) FROM journal WHERE folder_id = ? AND state = 'pending'",
                arguments: [folder]
            ).map { Date(timeIntervalSince1970: $0) }
        }
    }
}

extension IndexStore {
    /// Whether a local change to `path` is queued or being pushed.
    func hasPendingPush(folder: String, path: String) throws -> Bool {
        try exists("SELECT EXISTS (SELECT 1 FROM journal WHERE folder_id = ? AND path = ?)", [folder, path])
    }

    /// A move of this device is being committed right now (its reply may be on the way).
    func hasMoveInFlight(folder: String) throws -> Bool {
        try exists(
            "SELECT EXISTS (SELECT 1 FROM journal WHERE folder_id = ? AND move_from IS NOT NULL AND state = 'running')", [folder])
    }

    /// A move of this device is queued or being committed.
    func hasPendingMove(folder: String) throws -> Bool {
        try exists("SELECT EXISTS (SELECT 1 FROM journal WHERE folder_id = ? AND move_from IS NOT NULL)", [folder])
    }

    private func exists(_ sql: String, _ arguments: StatementArguments) throws -> Bool {
        try pool.read { db in try Bool.fetchOne(db, sql: sql, arguments: arguments) ?? false }
    }
}
