import PostgresNIO

/// The mark of a `storage copy` into this database (`storage_copy`, one row while a copy has
/// not finished): a copy only fills a database that is new or that an unfinished copy left,
/// and no server starts on one until the copy has run to its end.
extension PostgresMetadataStore {
    /// Marks a copy from `source` as under way; refused when the database holds a server's
    /// data (folders, devices or packs) or a server has started on it (it records where its
    /// packs are), and no unfinished copy left it.
    func beginCopy(from source: String) async throws {
        try await run {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.execute("LOCK TABLE storage_copy IN EXCLUSIVE MODE", logger: logger)
                var marked = false
                for try await _ in try await connection.query("SELECT 1 FROM storage_copy WHERE id = 1", logger: logger) {
                    marked = true
                }
                var used = false
                for try await value in try await connection.query(
                    """
                    SELECT EXISTS (SELECT 1 FROM folders) OR EXISTS (SELECT 1 FROM devices) OR EXISTS (SELECT 1 FROM packs)
                        OR EXISTS (SELECT 1 FROM pack_location)
                    """,
                    logger: logger
                ).decode(Bool.self) { used = value }
                guard marked || !used else {
                    throw APIError.invalidArgument(
                        "the database \(location) already holds a server's data (or a server has started on it): storage copy "
                            + "fills a new database only (make an empty one with createdb)")
                }
                try await connection.query(
                    """
                    INSERT INTO storage_copy (id, source, started_at) VALUES (1, \(source), \(MetadataStore.nowSeconds()))
                    ON CONFLICT (id) DO UPDATE SET source = EXCLUDED.source, started_at = EXCLUDED.started_at
                    """, logger: logger)
            }
        }
    }

    /// The copy ran to its end: its packs are at `packLocation` (recorded as a server's start
    /// would: a server configured with another place is refused), and servers may start.
    func endCopy(packLocation: String) async throws {
        try await run {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.execute("LOCK TABLE storage_copy IN EXCLUSIVE MODE", logger: logger)
                try await connection.execute(
                    """
                    INSERT INTO pack_location (id, location, claimed_at) VALUES (1, \(packLocation), \(MetadataStore.nowSeconds()))
                    ON CONFLICT (id) DO UPDATE SET location = EXCLUDED.location, claimed_at = EXCLUDED.claimed_at
                    """, logger: logger)
                try await connection.execute("DELETE FROM storage_copy", logger: logger)
            }
        }
    }
}
