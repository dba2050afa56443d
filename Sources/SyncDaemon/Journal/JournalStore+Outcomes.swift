import Foundation
import GRDB

/// How an attempt ends: done (with the index changes it produced, one transaction),
/// put back with a retry time, given up, parked for approval. The path's error in
/// `path_errors` is written or cleared in the same transaction.
extension JournalStore {
    private var errors: PathErrorStore { PathErrorStore(pool: pool) }

    /// Ends the attempt of `done` paths and applies the index changes it produced
    /// (base + local records + outbox, `RecordStore.apply`), in one transaction: one fsync
    /// for the batch. Paths that became dirty meanwhile go back to pending and are returned.
    public func finish(folder: String, done: [String], update: IndexUpdateBox) throws -> Set<String> {
        try pool.write { db in
            let outdated = try RecordStore(pool: pool).apply(folder: folder, update.value, in: db)
            // A path whose records were left out (a download landed since its push was prepared,
            // `IndexUpdate.preparedOver`) is looked at again: its op runs once more, or it gets one.
            let lookAgain = try db.cachedStatement(sql: Self.lookAgain)
            let now = Date().timeIntervalSince1970
            for path in outdated { try lookAgain.execute(arguments: [folder, path, now, now]) }
            // Entries the batch's outcome says to look at again (claimed in this order).
            for (i, path) in update.value.lookAgain.enumerated() {
                try lookAgain.execute(arguments: [folder, path, now, now + Double(i + 1) * 1e-6])
            }
            // A rerun pushes the path's state as it is then: the move (if any) is done.
            let rerun = try db.cachedStatement(sql: Self.rerunDirty + " RETURNING path")
            var again = outdated.subtracting(done)
            // Clean rows end here, a few hundred per statement; a dirty one (the only kind the
            // deletes leave) goes back to pending for one more run.
            var deleted = Set<String>()
            for slice in IndexSQL.slices(done) {
                let (these, arguments) = IndexSQL.paths(slice, in: folder)
                deleted.formUnion(
                    try String.fetchAll(db, sql: "DELETE FROM journal WHERE \(these) AND dirty = 0 RETURNING path", arguments: arguments))
            }
            for path in done where !deleted.contains(path) {
                if try String.fetchOne(rerun, arguments: [folder, path]) != nil { again.insert(path) }
            }
            // A folder that shows no path errors has none to clear (one look, not one per path).
            // A remote delete left to the next start keeps its error: the op of the path (the
            // trash move's own event, say) does not settle it; the next start does.
            if try errors.any(folder: folder, in: db) {
                for path in done { try errors.clear(folder: folder, path: path, unless: .interrupted, in: db) }
            }
            return again
        }
    }

    /// A push op for a path (folder, path, due at, enqueued at), due then; a path whose op is
    /// running runs once more after it (`dirty`), one pending or held stays as it is.
    static let lookAgain = """
        INSERT INTO journal (folder_id, path, op, state, dirty, attempts, next_attempt_at, enqueued_at, move_from)
        VALUES (?, ?, 'push', 'pending', 0, 0, ?, ?, NULL)
        ON CONFLICT (folder_id, path) DO UPDATE SET dirty = CASE WHEN state = 'running' THEN 1 ELSE dirty END
        """

    /// Puts a failed attempt back with a retry time, and shows the error. A path that got
    /// here by a move during the attempt (`next_move_from`) holds other content now: it runs
    /// again at once, as that move, its tries counted afresh (its source's op, due now, would
    /// otherwise go up first, alone, as a delete).
    public func reschedule(folder: String, paths: [String], error: DaemonError, retryAt: Date, now: Date = Date()) throws {
        try pool.write { db in
            let update = try db.cachedStatement(sql: """
                UPDATE journal SET state = 'pending', dirty = 0,
                    attempts = CASE WHEN next_move_from IS NULL THEN attempts + 1 ELSE 0 END,
                    next_attempt_at = CASE WHEN next_move_from IS NULL THEN ? ELSE MIN(?, next_attempt_at) END,
                    \(JournalStore.carryMove), last_error = ?
                WHERE folder_id = ? AND path = ?
                RETURNING next_attempt_at
                """)
            for path in paths {
                let due = try Double.fetchOne(update, arguments: [
                    retryAt.timeIntervalSince1970, now.timeIntervalSince1970, error.description, folder, path,
                ])
                // The time shown is the one the op runs at (now, for one that got a move).
                let shown = due.map { min(retryAt, Date(timeIntervalSince1970: $0)) } ?? retryAt
                try errors.show(folder: folder, path: path, error: error, retryAt: shown, origin: .push, in: db)
            }
        }
    }

    /// Puts claimed ops back, due now, without counting an attempt (they wait for
    /// a move in the same batch); `forgetMove` ones will push as plain changes.
    public func release(folder: String, paths: [String], forgetMove: Set<String> = []) throws {
        try pool.write { db in
            let update = try db.cachedStatement(sql: """
                UPDATE journal SET state = 'pending', dirty = 0,
                    move_from = COALESCE(next_move_from, CASE WHEN ? THEN NULL ELSE move_from END), next_move_from = NULL
                WHERE folder_id = ? AND path = ?
                """)
            for path in paths { try update.execute(arguments: [forgetMove.contains(path), folder, path]) }
        }
    }

    /// A path changed during its attempt (`dirty`) goes back to pending for one more run,
    /// which pushes its state as it is then: the attempt's move, if any, is done; one that
    /// brought the path here meanwhile is pushed as a move (a file renamed onto the old name
    /// of a file whose move was on its way went up as a new file, its old name as a delete).
    private static let rerunDirty = """
        UPDATE journal SET state = 'pending', dirty = 0, attempts = 0, move_from = next_move_from, next_move_from = NULL
        WHERE folder_id = ? AND path = ? AND dirty = 1
        """

    /// An op that stops running without ending keeps its move, unless one brought the path
    /// here meanwhile (`next_move_from`): that one is what is on disk now.
    static let carryMove = "move_from = COALESCE(next_move_from, move_from), next_move_from = NULL"

    /// A path changed during the failed attempt (`dirty`: the user fixed a permission, say)
    /// runs once more instead (its error shown until then); the paths that do are returned.
    @discardableResult
    public func fail(folder: String, paths: [String], error: DaemonError) throws -> Set<String> {
        try pool.write { db in
            let delete = try db.cachedStatement(sql: "DELETE FROM journal WHERE folder_id = ? AND path = ? AND dirty = 0")
            let rerun = try db.cachedStatement(sql: Self.rerunDirty)
            var again = Set<String>()
            for path in paths {
                try errors.show(folder: folder, path: path, error: error, retryAt: nil, origin: .push, in: db)
                try delete.execute(arguments: [folder, path])
                if db.changesCount == 0 {
                    try rerun.execute(arguments: [folder, path])
                    if db.changesCount > 0 { again.insert(path) }
                }
            }
            return again
        }
    }

    /// Parks deletes that wait for `syncctl approve-deletes` (state `held`). Every one is
    /// held, changed during the attempt or not (one sent as a rerun would leave the wave
    /// alone, and a single delete is never held): when approved it pushes what is there then.
    /// A move that brought a file onto one meanwhile is dropped (`next_move_from`): that file
    /// goes up as new content at the approval (a held row with a move would keep the remote
    /// side from applying moves for as long as the wave waits).
    public func hold(folder: String, paths: [String]) throws {
        try pool.write { db in
            let update = try db.cachedStatement(
                sql: "UPDATE journal SET state = 'held', dirty = 0, next_move_from = NULL WHERE folder_id = ? AND path = ?")
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

    /// Releases the held deletes of `paths` alone (they are there again: pushed as what they hold).
    public func releaseHeld(folder: String, paths: [String]) throws {
        try pool.write { db in
            let update = try db.cachedStatement(sql: "UPDATE journal SET state = 'pending' WHERE folder_id = ? AND path = ? AND state = 'held'")
            for path in paths { try update.execute(arguments: [folder, path]) }
        }
    }
}
