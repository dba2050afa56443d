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

extension IndexStore {
    func putIntent(folder: String, _ intent: DownloadIntent, in db: Database) throws {
        let encoder = JSONEncoder()
        let local = try intent.previousLocal.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        let base = try intent.previousBase.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO download_intents (folder_id, path, staged_inode, previous_local, previous_base)
                VALUES (?, ?, ?, ?, ?)
                """,
            arguments: [folder, intent.path, Int64(bitPattern: intent.stagedInode), local, base])
    }

    func dropIntents(folder: String, paths: [String], in db: Database) throws {
        let drop = try db.cachedStatement(sql: "DELETE FROM download_intents WHERE folder_id = ? AND path = ?")
        for path in paths { try drop.execute(arguments: [folder, path]) }
    }

    /// At start: downloads a kill -9 interrupted between recording and renaming. Where
    /// the staged file is not at its path, the path's records are put back as they were
    /// (the feed, whose cursor did not move past the entry, brings it again); where it
    /// is, the download landed. Returns the paths put back.
    func recoverInterruptedDownloads(folder: String, inodeAt: (String) -> UInt64?) throws -> [String] {
        let rows = try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM download_intents WHERE folder_id = ?", arguments: [folder])
        }
        let decoder = JSONDecoder()
        var restored: [String] = []
        for row in rows {
            let path: String = row["path"]
            let staged = UInt64(bitPattern: row["staged_inode"] as Int64)
            guard inodeAt(path) != staged else {
                try pool.write { db in try dropIntents(folder: folder, paths: [path], in: db) }
                continue
            }
            let local = try (row["previous_local"] as String?).map { try decoder.decode(LocalRecord.self, from: Data($0.utf8)) }
            let base = try (row["previous_base"] as String?).map { try decoder.decode(BaseRecord.self, from: Data($0.utf8)) }
            try restore(folder: folder, path: path, local: local, base: base)  // drops the intent too
            restored.append(path)
        }
        return restored
    }
}
