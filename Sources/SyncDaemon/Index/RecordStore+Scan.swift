import GRDB
import SyncCore

extension RecordStore {
    /// The `ScanBaseline` of a folder, in one query and one pass of its cursor: local
    /// records with their base (joined), then the live bases without a local record.
    /// Narrow, with positional columns: a warm rescan of 100,000 files must not decode
    /// chunk lists and hashes it never looks at.
    func scanBaseline(folder: String) throws -> ScanBaseline {
        try pool.read { db in
            var baseline = ScanBaseline()
            let local = LocalFileStore.table
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM local_files WHERE folder_id = ?", arguments: [folder])
            baseline.reserveCapacity(count ?? 0)
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT l.path, l.kind, l.inode, l.size, l.mtime_ns, l.ctime_ns, l.mode,
                           (b.path IS NOT NULL AND b.deleted = 0 AND b.kind = l.kind AND b.content_hash = l.content_hash) AS in_sync,
                           CASE WHEN b.deleted = 0 THEN b.kind END AS base_kind
                    FROM local_files l LEFT JOIN base b ON b.folder_id = l.folder_id AND b.path = l.path
                    WHERE l.folder_id = ?1
                    UNION ALL
                    SELECT b.path, NULL, NULL, NULL, NULL, NULL, NULL, NULL, b.kind
                    FROM base b
                    WHERE b.folder_id = ?1 AND b.deleted = 0
                      AND NOT EXISTS (SELECT 1 FROM local_files l WHERE l.folder_id = b.folder_id AND l.path = b.path)
                    """, arguments: [folder])
            while let row = try rows.next() {
                let path: String = try row.indexValue(at: 0, "path", table: local)
                var synced: ScanBaseline.Synced?
                if !row.hasNull(atIndex: 1) {
                    let kind: String = try row.indexValue(at: 1, "kind", table: local, path: path)
                    let mode: Int64 = try row.indexValue(at: 6, "mode", table: local, path: path)
                    let stat = FileStat(
                        kind: try IndexValue.kind(kind, table: local, path: path),
                        inode: UInt64(bitPattern: try row.indexValue(at: 2, "inode", table: local, path: path)),
                        size: try row.indexValue(at: 3, "size", table: local, path: path),
                        mtimeNs: try row.indexValue(at: 4, "mtime_ns", table: local, path: path),
                        ctimeNs: try row.indexValue(at: 5, "ctime_ns", table: local, path: path),
                        mode: try IndexValue.mode(mode, table: local, path: path))
                    synced = ScanBaseline.Synced(stat: stat, inSync: try row.indexValue(at: 7, "in_sync", table: local, path: path))
                }
                var liveBaseIsDirectory: Bool?
                if !row.hasNull(atIndex: 8) {
                    let kind: String = try row.indexValue(at: 8, "kind", table: BaseStore.table, path: path)
                    liveBaseIsDirectory = try IndexValue.kind(kind, table: BaseStore.table, path: path) == .directory
                }
                baseline.add(path, synced: synced, liveBaseIsDirectory: liveBaseIsDirectory)
            }
            baseline.unrecordedLiveCount = try unrecordedLivePaths(folder: folder, in: db).filter {
                guard let at = baseline.positions[$0] else { return true }
                return baseline.known[at].liveBaseIsDirectory == nil
            }.count
            return baseline
        }
    }

    /// The paths the outbox's commits put on the server live. A row no release can read is
    /// set aside by the next outbox round (logged there), and what it held is never recorded:
    /// its paths count as never synced.
    private func unrecordedLivePaths(folder: String, in db: Database) throws -> Set<String> {
        var paths = Set<String>()
        for change in try OutboxStore.contents(folder: folder, in: db).commits.flatMap(\.changes) {
            if let from = change.moveFrom { paths.remove(from) }
            if change.deleted { paths.remove(change.path) } else { paths.insert(change.path) }
        }
        return paths
    }
}
