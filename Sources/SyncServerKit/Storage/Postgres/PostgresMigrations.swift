import Logging
import PostgresNIO

/// The PostgreSQL schema, as versioned migrations recorded in `schema_migrations`. Shipped
/// migrations never change: add new ones. They run at start (and alone with `sync-server
/// migrate`), each in its own transaction under an advisory lock, so instances that start
/// together apply each migration once.
///
/// The schema is SQLite's (Migrations, v1 to v9) as it stands, in one first step. Text that
/// is ordered or compared by range (paths, ids, names) is `COLLATE "C"`: byte order, as
/// SQLite compares, whatever the cluster's locale (a move's `path >= 'a/' AND path < 'a0'`
/// depends on it).
enum PostgresMigrations {
    static let all: [(id: String, sql: [String])] = [
        ("p1-initial", p1Initial),
        // Pack ids come in blocks, one block per server start (`PostgresChunkIndex.firstPackID`):
        // instances sharing a bucket never name two packs alike.
        ("p2-pack-id-blocks", ["CREATE SEQUENCE pack_blocks"]),
        // Where the packs are (a bucket and prefix, or a host's data directory): every server on
        // the database must name the same place (`claimPacks`), or it would take the rows of
        // packs it cannot see for lost.
        ("p3-pack-location", [
            "CREATE TABLE pack_location (id INTEGER PRIMARY KEY CHECK (id = 1), location TEXT NOT NULL, claimed_at BIGINT NOT NULL)"
        ]),
        // Access tokens by their SHA-256: one instance issues, every instance accepts.
        ("p4-access-tokens", [
            """
            CREATE TABLE access_tokens (
                token_hash TEXT PRIMARY KEY,
                device_id TEXT COLLATE "C" NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX access_tokens_by_expiry ON access_tokens(expires_at)",
        ]),
        // A `storage copy` into this database that has not finished (the SQLite data directory
        // it copies from): servers refuse to start on it until a copy run ends.
        ("p5-storage-copy", [
            "CREATE TABLE storage_copy (id INTEGER PRIMARY KEY CHECK (id = 1), source TEXT NOT NULL, started_at BIGINT NOT NULL)"
        ]),
        // Each chunk's `ChunkChecksum` (SQLite's v10): checked when it is served; NULL for rows
        // indexed before, which are checked against their SHA-256 as before (decision 0028).
        ("p6-chunk-checksums", ["ALTER TABLE chunk_index ADD COLUMN checksum BIGINT"]),
    ]

    /// The advisory lock key migrations take ("syncmigr").
    static let lockKey: Int64 = 0x7379_6E63_6D69_6772

    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        var applied: [String] = []
        for migration in all {
            let done: Bool = try await connection.withTransaction(logger: logger) { connection in
                try await connection.execute("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)",
                    logger: logger)
                let rows = try await connection.query(
                    "SELECT 1 FROM schema_migrations WHERE id = \(migration.id)", logger: logger)
                for try await _ in rows { return false }
                for statement in migration.sql {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (id, applied_at) VALUES (\(migration.id), \(MetadataStore.nowSeconds()))",
                    logger: logger)
                return true
            }
            if done { applied.append(migration.id) }
        }
        return applied
    }

    static let p1Initial = [
        """
        CREATE TABLE folders (
            id TEXT COLLATE "C" PRIMARY KEY,
            rev BIGINT NOT NULL DEFAULT 0,
            created_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE devices (
            id TEXT COLLATE "C" PRIMARY KEY,
            name TEXT COLLATE "C" NOT NULL UNIQUE,
            secret_hash TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            revoked_at BIGINT,
            last_seen_at BIGINT
        )
        """,
        """
        CREATE TABLE grants (
            device_id TEXT COLLATE "C" NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            folder_id TEXT COLLATE "C" NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
            PRIMARY KEY (device_id, folder_id)
        )
        """,
        """
        CREATE TABLE entries (
            folder_id TEXT COLLATE "C" NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
            path TEXT COLLATE "C" NOT NULL,
            kind TEXT NOT NULL,
            size BIGINT NOT NULL,
            mtime_ns BIGINT NOT NULL,
            mode BIGINT NOT NULL,
            chunks TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            deleted BOOLEAN NOT NULL,
            rev BIGINT NOT NULL,
            symlink_target TEXT,
            device_id TEXT,
            moved_from TEXT,
            moved_to TEXT,
            PRIMARY KEY (folder_id, path)
        )
        """,
        "CREATE INDEX entries_by_rev ON entries(folder_id, rev)",
        """
        CREATE TABLE versions (
            folder_id TEXT COLLATE "C" NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
            rev BIGINT NOT NULL,
            path TEXT COLLATE "C" NOT NULL,
            kind TEXT NOT NULL,
            size BIGINT NOT NULL,
            mtime_ns BIGINT NOT NULL,
            mode BIGINT NOT NULL,
            chunks TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            deleted BOOLEAN NOT NULL,
            symlink_target TEXT,
            device_id TEXT,
            committed_at BIGINT NOT NULL,
            moved_from TEXT,
            moved_to TEXT,
            PRIMARY KEY (folder_id, rev)
        )
        """,
        "CREATE INDEX versions_by_path ON versions(folder_id, path, rev)",
        """
        CREATE TABLE commit_replies (
            folder_id TEXT COLLATE "C" NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
            device_id TEXT NOT NULL,
            commit_id TEXT NOT NULL,
            request_hash TEXT NOT NULL,
            response TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (folder_id, device_id, commit_id)
        )
        """,
        "CREATE INDEX commit_replies_by_age ON commit_replies(created_at)",
        """
        CREATE TABLE packs (
            id BIGINT PRIMARY KEY,
            durable_length BIGINT NOT NULL,
            sealed BOOLEAN NOT NULL DEFAULT FALSE,
            retired BOOLEAN NOT NULL DEFAULT FALSE
        )
        """,
        """
        CREATE TABLE chunk_index (
            hash TEXT COLLATE "C" PRIMARY KEY,
            pack_id BIGINT NOT NULL REFERENCES packs(id),
            "offset" BIGINT NOT NULL,
            length BIGINT NOT NULL,
            touched_at BIGINT NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX chunk_index_by_pack ON chunk_index(pack_id, \"offset\")",
    ]
}
