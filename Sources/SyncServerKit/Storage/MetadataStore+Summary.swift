import GRDB

extension MetadataStore {
    func summary() async throws -> ServerAdmin.Summary {
        try await pool.read { db in
            let folders = try Row.fetchAll(
                db,
                sql: """
                    SELECT f.id, f.rev,
                        (SELECT count(*) FROM entries e WHERE e.folder_id = f.id AND e.deleted = 0 AND e.kind = 'file'),
                        (SELECT coalesce(sum(size), 0) FROM entries e WHERE e.folder_id = f.id AND e.deleted = 0 AND e.kind = 'file')
                    FROM folders f ORDER BY f.id
                    """
            ).map { row in
                ServerAdmin.FolderSummary(id: row[0], rev: row[1], files: row[2], bytes: row[3], devices: [])
            }
            var granted: [String: [String]] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT g.folder_id, d.name FROM grants g JOIN devices d ON d.id = g.device_id
                    WHERE d.revoked_at IS NULL ORDER BY d.name
                    """)
            {
                granted[row[0], default: []].append(row[1])
            }
            let devices = try Int.fetchOne(db, sql: "SELECT count(*) FROM devices") ?? 0
            let revoked = try Int.fetchOne(db, sql: "SELECT count(*) FROM devices WHERE revoked_at IS NOT NULL") ?? 0
            let chunks = try Int.fetchOne(db, sql: "SELECT count(*) FROM chunk_index") ?? 0
            let packs = try Row.fetchOne(db, sql: "SELECT count(*), coalesce(sum(durable_length), 0) FROM packs WHERE retired = 0")
            return ServerAdmin.Summary(
                folders: folders.map { var folder = $0; folder.devices = granted[$0.id] ?? []; return folder },
                devices: devices, revokedDevices: revoked, chunks: chunks, packs: packs?[0] ?? 0, packBytes: packs?[1] ?? 0)
        }
    }

    func removeFolder(_ id: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM folders WHERE id = ?", arguments: [id])
            return db.changesCount == 1
        }
    }

    func chunkReferences() async throws -> (references: [String: [StorageCheck.Reference]], locations: [String: ChunkLocation]) {
        try await pool.read { db in
            let references = try StorageCheck.referencedChunks(db)
            return (references, try ChunkIndex.locations(of: Array(references.keys), db: db))
        }
    }

    /// One server per SQLite database: its tokens live in its memory (`TokenStore`) only.
    func shareToken(hash: String, device: String, expiresAt: Int64) async throws {}

    func sharedToken(hash: String, now: Int64) async throws -> (device: String, name: String, expiresAt: Int64)? { nil }

    func pruneExpiredTokens(now: Int64) async throws -> Int { 0 }
}
