import Foundation
import GRDB
import SyncCore

/// A remote delete recorded in the index (its tombstone written, its local record gone)
/// just before its file is moved to the trash. A kill -9 or a power cut between the two
/// would leave a file on disk that the index no longer knows, and the next start would push
/// it back up as new, undoing the delete everywhere; the row below lets the next start tell
/// which happened and put the path's records back when the file is still there.
struct DeleteIntent: Sendable, Equatable {
    var path: String
    /// The file the delete removes: while a file with this inode is at `path`, it did not happen.
    var inode: UInt64
    var previousLocal: LocalRecord?
    var previousBase: BaseRecord?
}

/// `delete_intents` (decision 0033): written with a run of remote deletes' records, dropped
/// once their moves to the trash are durable; what is left at start is looked at
/// (`RecordStore+Recovery`).
struct DeleteIntentStore: Sendable {
    let pool: DatabasePool
    static let table = "delete_intents"

    func put(folder: String, _ intents: [DeleteIntent], in db: Database) throws {
        guard !intents.isEmpty else { return }
        let put = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO delete_intents (folder_id, path, inode, previous_local, previous_base)
            VALUES (?, ?, ?, ?, ?)
            """)
        for intent in intents {
            try put.execute(
                arguments: [
                    folder, intent.path, Int64(bitPattern: intent.inode),
                    try intent.previousLocal.map(IndexValue.jsonText), try intent.previousBase.map(IndexValue.jsonText),
                ])
        }
    }

    /// A statement per few hundred paths (a run's intents are dropped at once).
    func drop(folder: String, paths: [String], in db: Database) throws {
        for slice in IndexSQL.slices(paths) {
            let (these, arguments) = IndexSQL.paths(slice, in: folder)
            try db.execute(sql: "DELETE FROM delete_intents WHERE \(these)", arguments: arguments)
        }
    }

    /// The paths a remote delete is removing now (or a kill -9 cut short, at start).
    func paths(folder: String) throws -> Set<String> {
        try pool.read { db in
            Set(try String.fetchAll(db, sql: "SELECT path FROM delete_intents WHERE folder_id = ?", arguments: [folder]))
        }
    }

    /// The folder's intents, whole (at start).
    func all(folder: String) throws -> [DeleteIntent] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM delete_intents WHERE folder_id = ?", arguments: [folder]).map(Self.decode)
        }
    }

    static func decode(_ row: Row) throws -> DeleteIntent {
        let path: String = try row.indexValue("path", table: table)
        let local: String? = try row.indexValue("previous_local", table: table, path: path)
        let base: String? = try row.indexValue("previous_base", table: table, path: path)
        return DeleteIntent(
            path: path, inode: UInt64(bitPattern: try row.indexValue("inode", table: table, path: path)),
            previousLocal: try local.map {
                try IndexValue.json(LocalRecord.self, from: $0, table: table, column: "previous_local", path: path)
            },
            previousBase: try base.map {
                try IndexValue.json(BaseRecord.self, from: $0, table: table, column: "previous_base", path: path)
            })
    }
}
