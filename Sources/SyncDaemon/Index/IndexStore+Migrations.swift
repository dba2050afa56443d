import GRDB

/// The index's schema, one migration per release that changed it (docs/architecture.md,
/// the Index room, names which store owns which table).
extension IndexStore {
    /// Migrations are append-only: a shipped migration never changes.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try db.execute(sql: """
                CREATE TABLE folder_state (
                    folder_id TEXT PRIMARY KEY,
                    remote_cursor INTEGER NOT NULL DEFAULT 0,
                    paused INTEGER NOT NULL DEFAULT 0,
                    last_synced_at REAL
                );
                CREATE TABLE local_files (
                    folder_id TEXT NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL,
                    inode INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
                    ctime_ns INTEGER NOT NULL, mode INTEGER NOT NULL,
                    content_hash TEXT NOT NULL, chunks TEXT NOT NULL, symlink_target TEXT,
                    PRIMARY KEY (folder_id, path)
                ) WITHOUT ROWID;
                CREATE TABLE base (
                    folder_id TEXT NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL,
                    rev INTEGER NOT NULL, content_hash TEXT NOT NULL, deleted INTEGER NOT NULL,
                    PRIMARY KEY (folder_id, path)
                ) WITHOUT ROWID;
                CREATE TABLE journal (
                    folder_id TEXT NOT NULL, path TEXT NOT NULL, op TEXT NOT NULL,
                    state TEXT NOT NULL, dirty INTEGER NOT NULL DEFAULT 0,
                    attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at REAL NOT NULL,
                    last_error TEXT, enqueued_at REAL NOT NULL,
                    PRIMARY KEY (folder_id, path)
                );
                CREATE INDEX journal_ready ON journal (folder_id, state, next_attempt_at);
                CREATE TABLE path_errors (
                    folder_id TEXT NOT NULL, path TEXT NOT NULL, message TEXT NOT NULL, retry_at REAL,
                    PRIMARY KEY (folder_id, path)
                );
                CREATE TABLE conflicts (
                    folder_id TEXT NOT NULL, path TEXT NOT NULL, remote_rev INTEGER NOT NULL,
                    local_hash TEXT NOT NULL, remote_hash TEXT NOT NULL, detected_at REAL NOT NULL,
                    PRIMARY KEY (folder_id, path)
                );
                """)
        }
        migrator.registerMigration("v2-local-content-index") { db in
            // Downloads look for a local file that already has the content (moves, copies).
            try db.execute(sql: "CREATE INDEX local_files_content ON local_files (folder_id, content_hash)")
        }
        migrator.registerMigration("v3-journal-moves") { db in
            // A push that is a move: the path's old name (committed as a server-side move).
            try db.execute(sql: "ALTER TABLE journal ADD COLUMN move_from TEXT")
        }
        migrator.registerMigration("v4-local-chunks") { db in
            // Which local files hold which chunks (files of more than one chunk: a
            // one-chunk file is found by its content hash), for downloads to reuse.
            try db.execute(sql: """
                CREATE TABLE local_chunks (folder_id TEXT NOT NULL, hash TEXT NOT NULL, path TEXT NOT NULL);
                CREATE INDEX local_chunks_by_hash ON local_chunks (folder_id, hash);
                CREATE INDEX local_chunks_by_path ON local_chunks (folder_id, path);
                """)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT folder_id, path, chunks FROM local_files WHERE kind = 'file' AND chunks LIKE '%,%'")
            let insert = try db.makeStatement(sql: "INSERT INTO local_chunks (folder_id, hash, path) VALUES (?, ?, ?)")
            while let row = try rows.next() {
                let chunks: String = row["chunks"]
                for hash in Set(chunks.split(separator: ",")) {
                    try insert.execute(arguments: [row["folder_id"] as String, String(hash), row["path"] as String])
                }
            }
        }
        migrator.registerMigration("v5-base-mode") { db in
            // Permission bits are part of the three-way comparison (NULL: not known yet).
            try db.execute(sql: "ALTER TABLE base ADD COLUMN mode INTEGER")
        }
        migrator.registerMigration("v6-remote-retry") { db in
            // Remote entries not applied yet (disk full, something in the way), retried with backoff.
            try db.execute(sql: """
                CREATE TABLE remote_retry (
                    folder_id TEXT NOT NULL, path TEXT NOT NULL, rev INTEGER NOT NULL, entry TEXT NOT NULL,
                    attempts INTEGER NOT NULL, next_attempt_at REAL NOT NULL, last_error TEXT NOT NULL,
                    PRIMARY KEY (folder_id, path)
                );
                CREATE INDEX remote_retry_due ON remote_retry (folder_id, next_attempt_at);
                """)
        }
        migrator.registerMigration("v7-download-intents") { db in
            // A download recorded but perhaps not renamed into place (see DownloadIntent).
            try db.execute(sql: """
                CREATE TABLE download_intents (
                    folder_id TEXT NOT NULL, path TEXT NOT NULL, staged_inode INTEGER NOT NULL,
                    previous_local TEXT, previous_base TEXT,
                    PRIMARY KEY (folder_id, path)
                )
                """)
        }
        migrator.registerMigration("v8-commit-outbox") { db in
            // Commits sent and not yet recorded (see OutboxStore).
            try db.execute(sql: """
                CREATE TABLE commit_outbox (
                    folder_id TEXT NOT NULL, commit_id TEXT NOT NULL, changes TEXT NOT NULL, created_at REAL NOT NULL,
                    PRIMARY KEY (folder_id, commit_id)
                )
                """)
        }
        migrator.registerMigration("v9-path-error-codes") { db in
            // What `--json` shows besides the message: the error's code and its cause
            // (both NULL for rows written before).
            try db.execute(sql: "ALTER TABLE path_errors ADD COLUMN code TEXT")
            try db.execute(sql: "ALTER TABLE path_errors ADD COLUMN cause TEXT")
        }
        migrator.registerMigration("v10-local-chunk-lengths") { db in
            // Where each chunk of a file is (`LocalRecord.chunkLengths`: comma-separated
            // lengths; NULL for one chunk, and for rows written before: read when needed).
            try db.execute(sql: "ALTER TABLE local_files ADD COLUMN chunk_lengths TEXT")
        }
        migrator.registerMigration("v11-delete-intents") { db in
            // A remote delete recorded but perhaps not moved to the trash (see DeleteIntent).
            try db.execute(sql: """
                CREATE TABLE delete_intents (
                    folder_id TEXT NOT NULL, path TEXT NOT NULL, session TEXT NOT NULL,
                    inode INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, entry TEXT NOT NULL,
                    previous_local TEXT, previous_base TEXT,
                    PRIMARY KEY (folder_id, path)
                )
                """)
        }
        migrator.registerMigration("v12-delete-intents-directories") { db in
            // Remote deletes of directories have intents too (`RemovedFile.directory`: a
            // directory is matched by its inode alone; 0 for rows written before, all files).
            try db.execute(sql: "ALTER TABLE delete_intents ADD COLUMN directory INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v13-path-error-origin") { db in
            // Which side an error came from (`PathErrorStore.Origin`: 'push' or 'remote'; NULL
            // for rows written before): `syncctl retry` pushes again the paths whose push failed.
            try db.execute(sql: "ALTER TABLE path_errors ADD COLUMN origin TEXT")
        }
        migrator.registerMigration("v14-partial-downloads") { db in
            // Big downloads cut short, kept over a stop for their next try (decision 0036):
            // the staging file's path in the folder and its directory, the chunks written, its
            // stat when kept.
            try db.execute(sql: """
                CREATE TABLE partial_downloads (
                    folder_id TEXT NOT NULL, path TEXT NOT NULL, content_hash TEXT NOT NULL,
                    staging TEXT NOT NULL, directory_device INTEGER NOT NULL, directory_inode INTEGER NOT NULL,
                    lengths TEXT NOT NULL,
                    inode INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
                    ctime_ns INTEGER NOT NULL, mode INTEGER NOT NULL,
                    PRIMARY KEY (folder_id, path)
                )
                """)
        }
        migrator.registerMigration("v15-download-checkpoints") { db in
            // A big download under way records how far it got (`DownloadCheckpoints`): such a
            // row is not trusted by its stat but by its chunks' hashes (sealed = 0).
            try db.execute(sql: "ALTER TABLE partial_downloads ADD COLUMN sealed INTEGER NOT NULL DEFAULT 1")
        }
        migrator.registerMigration("v16-journal-rerun-moves") { db in
            // The old name of a path that got here by a move while its op was running: the
            // op's rerun pushes that move (`JournalStore.enqueue`).
            try db.execute(sql: "ALTER TABLE journal ADD COLUMN next_move_from TEXT")
        }
        return migrator
    }
}
