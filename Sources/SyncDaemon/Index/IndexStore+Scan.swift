import GRDB
import SyncCore

/// What a full scan compares the disk with: per path the stat it was last
/// synced at, and whether that state is what the server has (in sync).
/// Loaded in two narrow queries with positional columns: a warm rescan of
/// 100,000 files must not decode chunk lists and hashes it never looks at.
struct ScanBaseline: Sendable {
    struct Synced: Sendable {
        /// The stat it was last synced at: equal means unchanged, no need to read it.
        var stat: FileStat
        /// The base agrees: live, same kind, same content hash.
        var inSync: Bool
    }

    var local: [String: Synced] = [:]
    /// Live entries the server has, and whether each is a directory.
    var liveBase: [(path: String, isDirectory: Bool)] = []
}

extension IndexStore {
    func scanBaseline(folder: String) throws -> ScanBaseline {
        try pool.read { db in
            var baseline = ScanBaseline()
            let locals = try Row.fetchCursor(
                db,
                sql: """
                    SELECT l.path, l.kind, l.inode, l.size, l.mtime_ns, l.ctime_ns, l.mode,
                           (b.deleted = 0 AND b.kind = l.kind AND b.content_hash = l.content_hash)
                    FROM local_files l LEFT JOIN base b ON b.folder_id = l.folder_id AND b.path = l.path
                    WHERE l.folder_id = ?
                    """, arguments: [folder])
            while let row = try locals.next() {
                let kind: String = row[1]
                let mode: Int64 = row[6]
                let inSync: Bool? = row[7]
                let stat = FileStat(
                    kind: try IndexStore.kind(kind, table: "local_files", path: row[0]), inode: UInt64(bitPattern: row[2]), size: row[3],
                    mtimeNs: row[4], ctimeNs: row[5], mode: UInt32(truncatingIfNeeded: mode))
                baseline.local[row[0]] = ScanBaseline.Synced(stat: stat, inSync: inSync ?? false)
            }
            let bases = try Row.fetchCursor(
                db, sql: "SELECT path, kind = 'directory' FROM base WHERE folder_id = ? AND deleted = 0", arguments: [folder])
            while let row = try bases.next() { baseline.liveBase.append((row[0], row[1])) }
            return baseline
        }
    }
}
