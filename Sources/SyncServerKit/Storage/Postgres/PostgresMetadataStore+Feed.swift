import PostgresNIO
import SyncCore

extension PostgresMetadataStore {
    /// Entries with rev > `since`, oldest first, at most `limit`; nil if the folder does not
    /// exist. One snapshot (REPEATABLE READ) for the folder's rev and its entries.
    func changes(folder: String, since: Int64, limit: Int) async throws -> ChangesResponse? {
        try await run {
            try await client.withTransaction(logger: logger) { connection -> ChangesResponse? in
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                var head: Int64?
                for try await rev in try await connection.query("SELECT rev FROM folders WHERE id = \(folder)", logger: logger)
                    .decode(Int64.self)
                { head = rev }
                guard let head else { return nil }
                let rows = try await connection.query(
                    """
                    SELECT \(unescaped: PostgresEntryRows.select) FROM entries
                    WHERE folder_id = \(folder) AND rev > \(since) ORDER BY rev LIMIT \(Int64(limit) + 1)
                    """, logger: logger)
                var entries = try await PostgresEntryRows.entries(rows)
                let hasMore = entries.count > limit
                if hasMore { entries.removeLast() }
                return ChangesResponse(entries: entries, cursor: entries.last?.rev ?? head, hasMore: hasMore, head: head)
            }
        }
    }

    /// Every recorded version of `path` (including tombstones), newest first.
    func history(folder: String, path: String) async throws -> [WireEntry] {
        try await run {
            let rows = try await client.query(
                """
                SELECT \(unescaped: PostgresEntryRows.select) FROM versions
                WHERE folder_id = \(folder) AND path = \(path) ORDER BY rev DESC
                """, logger: logger)
            return try await PostgresEntryRows.entries(rows)
        }
    }

    /// When and by which device each version of `path` was committed, newest first.
    func provenance(folder: String, path: String) async throws -> [VersionProvenance] {
        try await run {
            let rows = try await client.query(
                """
                SELECT v.rev, v.committed_at, d.name FROM versions v LEFT JOIN devices d ON d.id = v.device_id
                WHERE v.folder_id = \(folder) AND v.path = \(path) ORDER BY v.rev DESC
                """, logger: logger)
            var result: [VersionProvenance] = []
            for try await (rev, at, name) in rows.decode((Int64, Int64, String?).self) {
                result.append(VersionProvenance(rev: rev, committedAt: at, deviceName: name))
            }
            return result
        }
    }

    /// Deletes versions committed before `cutoff`, except each path's current one.
    func pruneHistory(before cutoff: Int64) async throws -> Int {
        try await run {
            try await client.withConnection { connection in
                try await connection.query(
                    """
                    DELETE FROM versions v WHERE v.committed_at < \(cutoff)
                      AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.folder_id = v.folder_id AND e.rev = v.rev)
                    RETURNING 1
                    """, logger: logger
                ).collect().count
            }
        }
    }
}
