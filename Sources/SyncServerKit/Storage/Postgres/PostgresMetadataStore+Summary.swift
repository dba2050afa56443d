import PostgresNIO

extension PostgresMetadataStore {
    func summary() async throws -> ServerAdmin.Summary {
        try await run {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                var folders: [ServerAdmin.FolderSummary] = []
                for try await (id, rev, files, bytes) in try await connection.query(
                    """
                    SELECT f.id, f.rev,
                        (SELECT count(*) FROM entries e WHERE e.folder_id = f.id AND NOT e.deleted AND e.kind = 'file'),
                        (SELECT COALESCE(sum(size), 0)::bigint FROM entries e WHERE e.folder_id = f.id AND NOT e.deleted AND e.kind = 'file')
                    FROM folders f ORDER BY f.id
                    """, logger: logger
                ).decode((String, Int64, Int64, Int64).self) {
                    folders.append(ServerAdmin.FolderSummary(id: id, rev: rev, files: Int(files), bytes: bytes, devices: []))
                }
                var granted: [String: [String]] = [:]
                for try await (folder, name) in try await connection.query(
                    """
                    SELECT g.folder_id, d.name FROM grants g JOIN devices d ON d.id = g.device_id
                    WHERE d.revoked_at IS NULL ORDER BY d.name
                    """, logger: logger
                ).decode((String, String).self) { granted[folder, default: []].append(name) }
                var summary = ServerAdmin.Summary(folders: [], devices: 0, revokedDevices: 0, chunks: 0, packs: 0, packBytes: 0)
                for try await (devices, revoked, chunks, packs, bytes) in try await connection.query(
                    """
                    SELECT (SELECT count(*) FROM devices), (SELECT count(*) FROM devices WHERE revoked_at IS NOT NULL),
                           (SELECT count(*) FROM chunk_index), (SELECT count(*) FROM packs WHERE NOT retired),
                           (SELECT COALESCE(sum(durable_length), 0)::bigint FROM packs WHERE NOT retired)
                    """, logger: logger
                ).decode((Int64, Int64, Int64, Int64, Int64).self) {
                    summary = ServerAdmin.Summary(
                        folders: [], devices: Int(devices), revokedDevices: Int(revoked), chunks: Int(chunks), packs: Int(packs),
                        packBytes: bytes)
                }
                summary.folders = folders.map { var folder = $0; folder.devices = granted[$0.id] ?? []; return folder }
                return summary
            }
        }
    }

    func removeFolder(_ id: String) async throws -> Bool {
        try await run {
            try await client.query("DELETE FROM folders WHERE id = \(id) RETURNING 1", logger: logger).collect().count == 1
        }
    }

    func chunkReferences() async throws -> (references: [String: [StorageCheck.Reference]], locations: [String: ChunkLocation]) {
        try await run {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                var references: [String: [StorageCheck.Reference]] = [:]
                for try await (folder, path, rev, chunks) in try await connection.query(
                    """
                    SELECT folder_id, path, rev, chunks FROM entries WHERE NOT deleted AND chunks <> ''
                    UNION
                    SELECT folder_id, path, rev, chunks FROM versions WHERE NOT deleted AND chunks <> ''
                    """, logger: logger
                ).decode((String, String, Int64, String).self) {
                    let reference = StorageCheck.Reference(folder: folder, path: path, rev: rev)
                    for hash in Set(chunks.split(separator: ",")) { references[String(hash), default: []].append(reference) }
                }
                var locations: [String: ChunkLocation] = [:]
                for try await (hash, pack, offset, length) in try await connection.query(
                    "SELECT hash, pack_id, \"offset\", length FROM chunk_index WHERE hash = ANY(\(Array(references.keys)))",
                    logger: logger
                ).decode((String, Int64, Int64, Int64).self) { locations[hash] = ChunkLocation(pack: pack, offset: offset, length: length) }
                return (references, locations)
            }
        }
    }
}
