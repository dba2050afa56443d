import Foundation
import GRDB
import SyncCore

/// A remote delete recorded in the index (its tombstone written, its local record gone)
/// just before its file is moved to the trash. A kill -9 or a power cut between the two
/// would leave a file on disk that the index no longer knows, and the next start would push
/// it back up as new, undoing the delete everywhere; the row below lets the next start tell
/// which happened and, when the file is still there untouched, put the path's records back
/// and apply the delete again.
struct DeleteIntent: Sendable, Equatable {
    /// The tombstone being applied (its path, its revision: `entry.baseRecord` is what the
    /// delete recorded).
    var entry: WireEntry
    /// The file the delete removes, as planned: while a file with this inode and this ctime is
    /// at the path, it was neither moved to the trash nor touched since (a rename, a write or a
    /// chmod changes the ctime; a move a power cut lost does not). For a directory, only the
    /// inode counts (`RemovedFile.isStill`).
    var inode: UInt64
    var ctimeNs: Int64
    /// A directory is removed (when empty), not moved: matched by its inode alone.
    var directory = false
    var previousLocal: LocalRecord?
    var previousBase: BaseRecord?

    var path: String { entry.path }

    var file: RemovedFile { RemovedFile(inode: inode, ctimeNs: ctimeNs, directory: directory) }
}

/// The file or directory a remote delete removes: a file by inode and ctime, a directory by
/// its inode alone.
struct RemovedFile: Sendable, Equatable {
    var inode: UInt64
    var ctimeNs: Int64
    var directory = false

    /// Whether `stat` is this file, untouched since it was planned; or this directory, not yet
    /// removed. A directory is removed only once empty (`rmdir`, never moved: its inode is gone
    /// with it), and the run that removes it empties it first, which changes its ctime; what
    /// the user put in it since makes the retry find it not empty, and it stays theirs.
    func isStill(_ stat: FileStat) -> Bool {
        guard stat.inode == inode else { return false }
        return directory ? stat.kind == .directory : stat.ctimeNs == ctimeNs
    }
}

/// `delete_intents` (decision 0033): written with a run of remote deletes' records, dropped
/// once their moves to the trash are durable. Each row names the process that wrote it
/// (`session`): what an earlier process left is resolved once the first scan has checked the
/// root (`RecordStore.recoverInterruptedDeletes`); this process's own are runs under way, or
/// left by a failure, and wait for the next start.
struct DeleteIntentStore: Sendable {
    let pool: DatabasePool
    static let table = "delete_intents"
    /// This process, in the rows it writes.
    static let session = UUID().uuidString

    func put(folder: String, _ intents: [DeleteIntent], in db: Database) throws {
        guard !intents.isEmpty else { return }
        let put = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO delete_intents
                (folder_id, path, session, inode, ctime_ns, directory, entry, previous_local, previous_base)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for intent in intents {
            try put.execute(
                arguments: [
                    folder, intent.path, Self.session, Int64(bitPattern: intent.inode), intent.ctimeNs,
                    intent.directory, try IndexValue.jsonText(intent.entry),
                    try intent.previousLocal.map(IndexValue.jsonText), try intent.previousBase.map(IndexValue.jsonText),
                ])
        }
    }

    /// A statement per few hundred paths (a run's intents are dropped at once).
    func drop(folder: String, paths: [String], in db: Database) throws {
        for slice in IndexSQL.slices(paths) {
            let (these, arguments) = IndexSQL.paths(slice, in: folder)
            try IndexSQL.statement(db, sql: "DELETE FROM delete_intents WHERE \(these)", count: slice.count).execute(arguments: arguments)
        }
    }

    /// The files remote deletes are removing now, or left by a kill (any process's), by path.
    func removing(folder: String) throws -> [String: RemovedFile] {
        try pool.read { db in
            var found: [String: RemovedFile] = [:]
            let rows = try Row.fetchAll(
                db, sql: "SELECT path, inode, ctime_ns, directory FROM delete_intents WHERE folder_id = ?", arguments: [folder])
            for row in rows {
                let path: String = try row.indexValue("path", table: Self.table)
                let inode: Int64 = try row.indexValue("inode", table: Self.table, path: path)
                found[path] = RemovedFile(
                    inode: UInt64(bitPattern: inode), ctimeNs: try row.indexValue("ctime_ns", table: Self.table, path: path),
                    directory: try row.indexValue("directory", table: Self.table, path: path))
            }
            return found
        }
    }

    /// The intents other processes than `thisProcess` left, and the paths of rows that
    /// cannot be read (kept as they are: one bad row must not stop the others).
    func left(folder: String, thisProcess: String = Self.session) throws -> (intents: [DeleteIntent], unreadable: [String]) {
        try pool.read { db in
            var intents: [DeleteIntent] = [], unreadable: [String] = []
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM delete_intents WHERE folder_id = ? AND session != ?", arguments: [folder, thisProcess])
            for row in rows {
                do {
                    intents.append(try Self.decode(row))
                } catch {
                    unreadable.append((row["path"] as String?) ?? "?")
                }
            }
            return (intents, unreadable)
        }
    }

    static func decode(_ row: Row) throws -> DeleteIntent {
        let path: String = try row.indexValue("path", table: table)
        let entry: String = try row.indexValue("entry", table: table, path: path)
        let local: String? = try row.indexValue("previous_local", table: table, path: path)
        let base: String? = try row.indexValue("previous_base", table: table, path: path)
        return DeleteIntent(
            entry: try IndexValue.json(WireEntry.self, from: entry, table: table, column: "entry", path: path),
            inode: UInt64(bitPattern: try row.indexValue("inode", table: table, path: path)),
            ctimeNs: try row.indexValue("ctime_ns", table: table, path: path),
            directory: try row.indexValue("directory", table: table, path: path),
            previousLocal: try local.map {
                try IndexValue.json(LocalRecord.self, from: $0, table: table, column: "previous_local", path: path)
            },
            previousBase: try base.map {
                try IndexValue.json(BaseRecord.self, from: $0, table: table, column: "previous_base", path: path)
            })
    }
}
