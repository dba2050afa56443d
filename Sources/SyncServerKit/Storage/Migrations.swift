import GRDB

/// The metadata schema. Shipped migrations never change: add new ones.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try db.execute(sql: v1Initial)
        }
        migrator.registerMigration("v2-moves") { db in
            // A move's arrival names its old path; its departure (tombstone) names the new one.
            try db.execute(sql: """
                ALTER TABLE entries ADD COLUMN moved_from TEXT;
                ALTER TABLE entries ADD COLUMN moved_to TEXT;
                ALTER TABLE versions ADD COLUMN moved_from TEXT;
                ALTER TABLE versions ADD COLUMN moved_to TEXT;
                """)
        }
        migrator.registerMigration("v3-device-revocation") { db in
            // A revoked device keeps its row (history names it) but is refused at once.
            try db.execute(sql: "ALTER TABLE devices ADD COLUMN revoked_at INTEGER")
        }
        return migrator
    }

    /// Names of all migrations, in order.
    static var names: [String] { migrator.migrations }

    private static let v1Initial = """
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
