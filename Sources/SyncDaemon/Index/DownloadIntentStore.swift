import Foundation
import GRDB
import SyncCore

/// A download recorded in the index just before its staging file is renamed into
/// place (so its own events are not pushed back). A kill -9 between the two leaves
/// the index describing a file that never landed; the row below lets the next start
/// tell which happened and put the path's records back when the rename did not.
struct DownloadIntent: Sendable {
    var path: String
    /// The staging file's inode: the file at `path` after the rename.
    var stagedInode: UInt64
    var previousLocal: LocalRecord?
    var previousBase: BaseRecord?
}

/// `download_intents` (decision 0008): written with the records of a download, dropped
/// when it has landed; what is left at start is looked at (`RecordStore+Recovery`).
struct DownloadIntentStore: Sendable {
    let pool: DatabasePool
    static let table = "download_intents"

    func put(folder: String, _ intents: [DownloadIntent], in db: Database) throws {
        guard !intents.isEmpty else { return }
        let put = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO download_intents (folder_id, path, staged_inode, previous_local, previous_base)
            VALUES (?, ?, ?, ?, ?)
            """)
        for intent in intents {
            try put.execute(
                arguments: [
                    folder, intent.path, Int64(bitPattern: intent.stagedInode),
                    try intent.previousLocal.map(IndexValue.jsonText), try intent.previousBase.map(IndexValue.jsonText),
                ])
        }
    }

    /// A statement per few hundred paths (a landed batch drops all of its intents at once).
    func drop(folder: String, paths: [String], in db: Database) throws {
        for slice in IndexSQL.slices(paths) {
            let (these, arguments) = IndexSQL.paths(slice, in: folder)
            try IndexSQL.statement(db, sql: "DELETE FROM download_intents WHERE \(these)", count: slice.count).execute(arguments: arguments)
        }
    }

    /// The folder's intents, by path with the staged inode (at start: downloads a kill -9
    /// may have cut short). The previous records are read only where needed (`intent`).
    func staged(folder: String) throws -> [(path: String, stagedInode: UInt64)] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT path, staged_inode FROM download_intents WHERE folder_id = ?", arguments: [folder])
                .map { row in
                    let path: String = try row.indexValue("path", table: Self.table)
                    return (path, UInt64(bitPattern: try row.indexValue("staged_inode", table: Self.table, path: path)))
                }
        }
    }

    func intent(folder: String, path: String) throws -> DownloadIntent? {
        try pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM download_intents WHERE folder_id = ? AND path = ?", arguments: [folder, path]
            ).map(Self.decode)
        }
    }

    static func decode(_ row: Row) throws -> DownloadIntent {
        let path: String = try row.indexValue("path", table: table)
        let local: String? = try row.indexValue("previous_local", table: table, path: path)
        let base: String? = try row.indexValue("previous_base", table: table, path: path)
        return DownloadIntent(
            path: path, stagedInode: UInt64(bitPattern: try row.indexValue("staged_inode", table: table, path: path)),
            previousLocal: try local.map {
                try IndexValue.json(LocalRecord.self, from: $0, table: table, column: "previous_local", path: path)
            },
            previousBase: try base.map {
                try IndexValue.json(BaseRecord.self, from: $0, table: table, column: "previous_base", path: path)
            })
    }
}
