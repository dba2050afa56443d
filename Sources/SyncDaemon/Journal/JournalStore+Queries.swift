import Foundation
import GRDB

/// What the journal holds: counts for the status, when to look again, whether a push or
/// a move of this device is on its way (the remote side asks before it applies).
extension JournalStore {
    /// After a crash or restart: running work becomes pending and is due now.
    public func resumeInterrupted(now: Date = Date()) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE journal SET state = 'pending', dirty = 0, \(Self.carryMove), next_attempt_at = ? WHERE state = 'running' OR state = 'pending'",
                arguments: [now.timeIntervalSince1970])
        }
    }

    public func pendingCount(folder: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal WHERE folder_id = ?", arguments: [folder]) ?? 0
        }
    }

    public func heldCount(folder: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal WHERE folder_id = ? AND state = 'held'", arguments: [folder]) ?? 0
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

    /// Whether a local change to `path` is queued or being pushed.
    func hasPendingPush(folder: String, path: String) throws -> Bool {
        try exists("SELECT EXISTS (SELECT 1 FROM journal WHERE folder_id = ? AND path = ?)", [folder, path])
    }

    /// Those of `paths` with a local change queued or being pushed, in few queries (a feed
    /// page's own entries, `RemoteApplier.apply`).
    func pendingPushes(folder: String, among paths: [String]) throws -> Set<String> {
        guard !paths.isEmpty else { return [] }
        return try pool.read { db in
            var found = Set<String>()
            for slice in IndexSQL.slices(paths) {
                let (these, arguments) = IndexSQL.paths(slice, in: folder)
                let rows = try String.fetchCursor(db, sql: "SELECT path FROM journal WHERE \(these)", arguments: arguments)
                while let path = try rows.next() { found.insert(path) }
            }
            return found
        }
    }

    /// A move of this device is being committed right now (its reply may be on the way).
    func hasMoveInFlight(folder: String) throws -> Bool {
        try exists(
            "SELECT EXISTS (SELECT 1 FROM journal WHERE folder_id = ? AND move_from IS NOT NULL AND state = 'running')", [folder])
    }

    /// A move of this device is queued or being committed (or journaled for the rerun of a
    /// path's op, `next_move_from`).
    func hasPendingMove(folder: String) throws -> Bool {
        try exists(
            "SELECT EXISTS (SELECT 1 FROM journal WHERE folder_id = ? AND (move_from IS NOT NULL OR next_move_from IS NOT NULL))", [folder])
    }

    /// A move of this device away from `path` is queued or being committed.
    func isPendingMoveSource(folder: String, path: String) throws -> Bool {
        try exists("SELECT EXISTS (SELECT 1 FROM journal WHERE folder_id = ?1 AND (move_from = ?2 OR next_move_from = ?2))", [folder, path])
    }

    private func exists(_ sql: String, _ arguments: StatementArguments) throws -> Bool {
        try pool.read { db in try Bool.fetchOne(db, sql: sql, arguments: arguments) ?? false }
    }
}
