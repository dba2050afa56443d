import Foundation
import GRDB
import SyncCore

/// A commit sent to the server and not yet recorded here, with its id.
struct OutboxCommit: Sendable, Equatable {
    var id: String
    var changes: [CommitChange]
}

/// `commit_outbox` (decision 0009). A commit is written here, with its id, before it is
/// sent, and leaves in the transaction that records its outcome. A row still here means
/// the server may have applied the commit while this device never learnt of it (a kill
/// -9 or a lost reply between the two): it is sent again with the same id before any
/// new push, and the server answers with what it did (or applies it now) — so the index
/// knows every entry this device put on the server, and a later delete of one of them
/// is pushed (a bare restart would have lost it: nothing here said the server had it).
struct OutboxStore: Sendable {
    let pool: DatabasePool
    static let table = "commit_outbox"

    /// The outbox as read: the commits, oldest first, and the rows no release can read
    /// (by id, with the error that names what is wrong) for the caller to set aside.
    struct Contents: Sendable {
        var commits: [OutboxCommit] = []
        var unreadable: [(id: String, error: DaemonError)] = []
    }

    func put(folder: String, _ commit: OutboxCommit, now: Date = Date()) throws {
        let json = String(
            decoding: JSONWriter.bytes(of: commit.changes, escapingSlashes: false, capacity: 64 + commit.changes.count * 256),
            as: UTF8.self)
        try pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO commit_outbox (folder_id, commit_id, changes, created_at) VALUES (?, ?, ?, ?)",
                arguments: [folder, commit.id, json, now.timeIntervalSince1970])
        }
    }

    func contents(folder: String) throws -> Contents {
        try pool.read { db in try Self.contents(folder: folder, in: db) }
    }

    /// The same, read in a transaction of the caller's (the scan reads it with the bases).
    static func contents(folder: String, in db: Database) throws -> Contents {
        let rows = try Row.fetchAll(
            db, sql: "SELECT commit_id, changes FROM commit_outbox WHERE folder_id = ? ORDER BY created_at, commit_id",
            arguments: [folder])
        var contents = Contents()
        for row in rows {
            let id: String = try row.indexValue("commit_id", table: Self.table)
            do {
                let json: String = try row.indexValue("changes", table: Self.table)
                let changes = try IndexValue.json([CommitChange].self, from: json, table: Self.table, column: "changes")
                contents.commits.append(OutboxCommit(id: id, changes: changes))
            } catch let error as DaemonError {
                contents.unreadable.append((id, error))
            }
        }
        return contents
    }

    func drop(folder: String, ids: [String]) throws {
        try pool.write { db in try drop(folder: folder, ids: ids, in: db) }
    }

    func drop(folder: String, ids: [String], in db: Database) throws {
        let delete = try db.cachedStatement(sql: "DELETE FROM commit_outbox WHERE folder_id = ? AND commit_id = ?")
        for id in ids { try delete.execute(arguments: [folder, id]) }
    }
}
