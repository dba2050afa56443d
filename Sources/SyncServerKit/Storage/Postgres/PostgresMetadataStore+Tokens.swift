import PostgresNIO

/// Access tokens shared by the instances on one database (the issuing instance also keeps
/// them in its `TokenStore`; the others look a token up here once, then cache it).
extension PostgresMetadataStore {
    func shareToken(hash: String, device: String, expiresAt: Int64) async throws {
        try await run {
            try await client.query(
                """
                INSERT INTO access_tokens (token_hash, device_id, expires_at) VALUES (\(hash), \(device), \(expiresAt))
                ON CONFLICT (token_hash) DO NOTHING
                """, logger: logger)
        }
    }

    func sharedToken(hash: String, now: Int64) async throws -> (device: String, name: String, expiresAt: Int64)? {
        try await run {
            for try await row in try await client.query(
                """
                SELECT d.id, d.name, t.expires_at FROM access_tokens t JOIN devices d ON d.id = t.device_id
                WHERE t.token_hash = \(hash) AND t.expires_at > \(now)
                """, logger: logger
            ).decode((String, String, Int64).self) { return row }
            return nil
        }
    }

    /// Forgets expired tokens (the storage round calls it); returns how many.
    func pruneExpiredTokens(now: Int64) async throws -> Int {
        try await run {
            try await client.query("DELETE FROM access_tokens WHERE expires_at <= \(now) RETURNING 1", logger: logger).collect().count
        }
    }
}
