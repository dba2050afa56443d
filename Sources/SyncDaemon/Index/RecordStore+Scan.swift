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

extension RecordStore {
    func scanBaseline(folder: String) throws -> ScanBaseline {
        try pool.read { db in
            var baseline = ScanBaseline()
            let local = LocalFileStore.table
            let locals = try Row.fetchCursor(
                db,
                sql: """
                    SELECT l.path, l.kind, l.inode, l.size, l.mtime_ns, l.ctime_ns, l.mode,
                           (b.path IS NOT NULL AND b.deleted = 0 AND b.kind = l.kind AND b.content_hash = l.content_hash)
                    FROM local_files l LEFT JOIN base b ON b.folder_id = l.folder_id AND b.path = l.path
                    WHERE l.folder_id = ?
                    """, arguments: [folder])
            while let row = try locals.next() {
                let path: String = try row.indexValue(at: 0, "path", table: local)
                func value<Value: DatabaseValueConvertible>(_ index: Int, _ column: String) throws -> Value {
                    try row.indexValue(at: index, column, table: local, path: path)
                }
                let stat = FileStat(
                    kind: try IndexValue.kind(value(1, "kind"), table: local, path: path),
                    inode: UInt64(bitPattern: try value(2, "inode")), size: try value(3, "size"),
                    mtimeNs: try value(4, "mtime_ns"), ctimeNs: try value(5, "ctime_ns"),
                    mode: try IndexValue.mode(value(6, "mode"), table: local, path: path))
                baseline.local[path] = ScanBaseline.Synced(stat: stat, inSync: try value(7, "base"))
            }
            let bases = try Row.fetchCursor(
                db, sql: "SELECT path, kind FROM base WHERE folder_id = ? AND deleted = 0", arguments: [folder])
            while let row = try bases.next() {
                let path: String = try row.indexValue(at: 0, "path", table: BaseStore.table)
                let kind = try IndexValue.kind(row.indexValue(at: 1, "kind", table: BaseStore.table, path: path), table: BaseStore.table, path: path)
                baseline.liveBase.append((path, kind == .directory))
            }
            return baseline
        }
    }
}
