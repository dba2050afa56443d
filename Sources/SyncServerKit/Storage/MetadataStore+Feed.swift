import GRDB
import SyncCore

extension MetadataStore {
    /// Entries with rev > `since`, oldest first, at most `limit`; nil if the folder does not exist.
    func changes(folder: String, since: Int64, limit: Int) async throws -> ChangesResponse? {
        try await pool.read { db in
            guard let folderRev = try Int64.fetchOne(db, sql: "SELECT rev FROM folders WHERE id = ?", arguments: [folder])
            else { return nil }
            let statement = try db.cachedStatement(
                sql: "SELECT \(EntryColumns.select) FROM entries WHERE folder_id = ? AND rev > ? ORDER BY rev LIMIT ?")
            var entries = try EntryColumns.fetchAll(statement, arguments: [folder, since, limit + 1])
            let hasMore = entries.count > limit
            if hasMore { entries.removeLast() }
            return ChangesResponse(entries: entries, cursor: entries.last?.rev ?? folderRev, hasMore: hasMore, head: folderRev)
        }
    }

    /// Every recorded version of `path` (including tombstones), newest first.
    func history(folder: String, path: String) async throws -> [WireEntry] {
        try await pool.read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT \(EntryColumns.select) FROM versions WHERE folder_id = ? AND path = ? ORDER BY rev DESC")
            return try EntryColumns.fetchAll(statement, arguments: [folder, path])
        }
    }

    /// When and by which device each version of `path` was committed, newest first (the
    /// order of `history`).
    func provenance(folder: String, path: String) async throws -> [VersionProvenance] {
        try await pool.read { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT v.rev, v.committed_at, d.name FROM versions v LEFT JOIN devices d ON d.id = v.device_id
                    WHERE v.folder_id = ? AND v.path = ? ORDER BY v.rev DESC
                    """)
            return try Row.fetchAll(statement, arguments: [folder, path]).map {
                VersionProvenance(rev: $0[0], committedAt: $0[1], deviceName: $0[2])
            }
        }
    }

    /// Deletes versions committed before `cutoff` (Unix seconds), except each
    /// path's current one. Current entries and tombstones stay (the feed needs them).
    func pruneHistory(before cutoff: Int64) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: """
                    DELETE FROM versions
                    WHERE committed_at < ?
                      AND NOT EXISTS (SELECT 1 FROM entries e
                                      WHERE e.folder_id = versions.folder_id AND e.rev = versions.rev)
                    """,
                arguments: [cutoff])
            return db.changesCount
        }
    }
}
