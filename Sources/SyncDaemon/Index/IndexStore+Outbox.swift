import Foundation
import GRDB
import SyncCore

/// A commit sent to the server and not yet recorded here, with its id.
struct OutboxCommit: Sendable, Equatable {
    var id: String
    var changes: [CommitChange]
}

/// The commit outbox. A commit is written here, with its id, before it is sent, and
/// leaves in the transaction that records its outcome. A row still here means the
/// server may have applied the commit while this device never learnt of it (a kill -9
/// or a lost reply between the two): it is sent again with the same id before any new
/// push, and the server answers with what it did (or applies it now) — so the index
/// knows every entry this device put on the server, and a later delete of one of them
/// is pushed (a bare restart would have lost it: nothing here said the server had it).
extension IndexStore {
    func putOutbox(folder: String, _ commit: OutboxCommit, now: Date = Date()) throws {
        let json = String(decoding: try JSONEncoder().encode(commit.changes), as: UTF8.self)
        try pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO commit_outbox (folder_id, commit_id, changes, created_at) VALUES (?, ?, ?, ?)",
                arguments: [folder, commit.id, json, now.timeIntervalSince1970])
        }
    }

    /// Commits not recorded yet, oldest first.
    func outbox(folder: String) throws -> [OutboxCommit] {
        let rows = try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT commit_id, changes FROM commit_outbox WHERE folder_id = ? ORDER BY created_at, commit_id",
                arguments: [folder])
        }
        return try rows.map { row in
            let id: String = row["commit_id"]
            let json: String = row["changes"]
            do {
                return OutboxCommit(id: id, changes: try JSONDecoder().decode([CommitChange].self, from: Data(json.utf8)))
            } catch {
                throw IndexCorruption(table: "commit_outbox", column: "changes", value: id, cause: "\(error)")
            }
        }
    }

    /// Records what the server did with a resent commit: each base unless the index
    /// already knows a newer revision of that path (the feed may have brought one
    /// meanwhile); the commit leaves the outbox in the same transaction.
    func recordResent(folder: String, _ update: IndexUpdate) throws {
        try pool.write { db in
            let known = try db.cachedStatement(sql: "SELECT rev FROM base WHERE folder_id = ? AND path = ?")
            var newer = update
            newer.bases = try update.bases.filter { b in
                guard let rev = try Int64.fetchOne(known, arguments: [folder, b.path]) else { return true }
                return rev < b.rev
            }
            try apply(folder: folder, newer, in: db)
        }
    }

    func dropOutbox(folder: String, ids: [String]) throws {
        try pool.write { db in try dropOutbox(folder: folder, ids: ids, in: db) }
    }

    func dropOutbox(folder: String, ids: [String], in db: Database) throws {
        let delete = try db.cachedStatement(sql: "DELETE FROM commit_outbox WHERE folder_id = ? AND commit_id = ?")
        for id in ids { try delete.execute(arguments: [folder, id]) }
    }
}

/// A row of the index that cannot be read as what it should hold.
struct IndexCorruption: Error, CustomStringConvertible {
    var table: String
    var column: String
    var value: String
    var cause: String
    var description: String { "index table \(table), column \(column) (\(value)) cannot be read: \(cause)" }
}
