import GRDB

/// The metadata schema. Shipped migrations never change: add new ones.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try db.execute(sql: v1Initial)
        }
        migrator.registerMigration("v2-moves") { db in
            // A move's arrival names its old path. (As first shipped; `moved_to` came with v3.)
            try db.execute(sql: v2Moves)
        }
        migrator.registerMigration("v3-moves-moved-to") { db in
            // A move's departure (tombstone) names the new path. Databases made while v2 briefly
            // held these columns too already have them.
            for table in ["entries", "versions"] where try !db.columns(in: table).contains(where: { $0.name == "moved_to" }) {
                try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN moved_to TEXT")
            }
        }
        migrator.registerMigration("v4-device-revocation") { db in
            // A revoked device keeps its row (history names it) but is refused at once.
            try db.execute(sql: "ALTER TABLE devices ADD COLUMN revoked_at INTEGER")
        }
        migrator.registerMigration("v5-commit-replies") { db in
            // The reply to each commit that carried a commit_id, for retries after a lost reply.
            try db.execute(sql: """
                CREATE TABLE commit_replies (
                    folder_id TEXT NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
                    device_id TEXT NOT NULL,
                    commit_id TEXT NOT NULL,
                    request_hash TEXT NOT NULL,
                    response TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (folder_id, device_id, commit_id)
                );
                CREATE INDEX commit_replies_by_age ON commit_replies(created_at);
                """)
        }
        migrator.registerMigration("v6-chunk-index") { db in
            // Chunks live in pack files (data_dir/packs); this says where each one is.
            try db.execute(sql: v6ChunkIndex)
        }
        migrator.registerMigration("v7-chunk-gc") { db in
            // Garbage collection and compaction (decision 0012). Rows indexed before it get the
            // migration's time: their grace period starts now.
            try db.execute(sql: v7ChunkGC)
        }
        migrator.registerMigration("v8-unique-device-names") { db in
            // Device names are unique from now on. Triggers, not a unique index: a database
            // that already holds two devices of one name keeps them (revoke or rename one);
            // only new names and renames are checked.
            try db.execute(sql: v8UniqueDeviceNames)
        }
        migrator.registerMigration("v9-device-last-seen") { db in
            // When the device last got an access token (about hourly while it syncs).
            try db.execute(sql: "ALTER TABLE devices ADD COLUMN last_seen_at INTEGER")
        }
        migrator.registerMigration("v10-chunk-checksums") { db in
            // Each chunk's `ChunkChecksum` (XXH64 of its bytes, decision 0028), checked when it
            // is served instead of its SHA-256. Rows indexed before it have none (NULL): those
            // are checked against their SHA-256 as before.
            try db.execute(sql: "ALTER TABLE chunk_index ADD COLUMN checksum INTEGER")
        }
        return migrator
    }

    static let v8UniqueDeviceNames = """
        CREATE TRIGGER devices_unique_name_insert BEFORE INSERT ON devices
        WHEN EXISTS (SELECT 1 FROM devices WHERE name = NEW.name)
        BEGIN SELECT RAISE(ABORT, 'device name already in use'); END;
        CREATE TRIGGER devices_unique_name_update BEFORE UPDATE OF name ON devices
        WHEN NEW.name <> OLD.name AND EXISTS (SELECT 1 FROM devices WHERE name = NEW.name AND id <> NEW.id)
        BEGIN SELECT RAISE(ABORT, 'device name already in use'); END;
        """

    /// Names of all migrations, in order.
    static var names: [String] { migrator.migrations }

    /// `packs`: every pack file the index may point into, with the length up to which its
    /// bytes were fsynced before any index row pointing there was written, and whether the
    /// writer closed it (`sealed`); a pack not sealed is verified record by record at start.
    /// `chunk_index.offset` is where the chunk's bytes start (its record header is the 40
    /// bytes before).
    static let v6ChunkIndex = """
        CREATE TABLE packs (
            id INTEGER PRIMARY KEY NOT NULL,
            durable_length INTEGER NOT NULL,
            sealed INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE chunk_index (
            hash TEXT PRIMARY KEY NOT NULL,
            pack_id INTEGER NOT NULL REFERENCES packs(id),
            offset INTEGER NOT NULL,
            length INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX chunk_index_by_pack ON chunk_index(pack_id, offset);
        """

    /// `chunk_index.touched_at`: when the chunk was last uploaded, or last reported present
    /// to a client (Unix seconds); an unreferenced chunk is collected only once this is more
    /// than the grace period ago. `packs.retired`: the pack's rows were all moved away (or it
    /// had none) and its file is being deleted; nothing may be indexed in it any more, and a
    /// start finishes the deletion.
    static let v7ChunkGC = """
        ALTER TABLE chunk_index ADD COLUMN touched_at INTEGER NOT NULL DEFAULT 0;
        UPDATE chunk_index SET touched_at = CAST(strftime('%s', 'now') AS INTEGER);
        ALTER TABLE packs ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;
        """

    static let v2Moves = """
        ALTER TABLE entries ADD COLUMN moved_from TEXT;
        ALTER TABLE versions ADD COLUMN moved_from TEXT;
        """

    static let v1Initial = """
        CREATE TABLE folders (
            id TEXT PRIMARY KEY NOT NULL,
            rev INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE devices (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            secret_hash TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE grants (
            device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            folder_id TEXT NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
            PRIMARY KEY (device_id, folder_id)
        );
        CREATE TABLE entries (
            folder_id TEXT NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            kind TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            mode INTEGER NOT NULL,
            chunks TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            deleted INTEGER NOT NULL,
            rev INTEGER NOT NULL,
            symlink_target TEXT,
            device_id TEXT,
            PRIMARY KEY (folder_id, path)
        );
        CREATE INDEX entries_by_rev ON entries(folder_id, rev);
        CREATE TABLE versions (
            folder_id TEXT NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
            rev INTEGER NOT NULL,
            path TEXT NOT NULL,
            kind TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            mode INTEGER NOT NULL,
            chunks TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            deleted INTEGER NOT NULL,
            symlink_target TEXT,
            device_id TEXT,
            committed_at INTEGER NOT NULL,
            PRIMARY KEY (folder_id, rev)
        );
        CREATE INDEX versions_by_path ON versions(folder_id, path, rev);
        """
}
