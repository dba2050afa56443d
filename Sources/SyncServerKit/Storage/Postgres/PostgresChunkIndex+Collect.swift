import PostgresNIO

/// The collector in PostgreSQL (see `ChunkGC` for the rules): candidates are read without
/// locks; the drop holds every folder's row lock, so no commit runs meanwhile, and a commit
/// that checked a candidate before (holding it share-locked) has ended and is seen.
extension PostgresChunkIndex {
    func collectGarbage(now: Int64, grace: Int64) async throws -> ChunkGC.Dropped {
        let cutoff = now - grace
        return try await store.run {
            var folderRevs: [String: Int64] = [:]
            for try await (id, rev) in try await store.client.query("SELECT id, rev FROM folders", logger: store.logger)
                .decode((String, Int64).self)
            { folderRevs[id] = rev }
            var referenced = ReferencedChunks()
            for try await list in try await store.client.query(
                """
                SELECT chunks FROM entries WHERE NOT deleted AND chunks <> ''
                UNION ALL
                SELECT chunks FROM versions WHERE NOT deleted AND chunks <> ''
                """, logger: store.logger
            ).decode(String.self) { referenced.insert(list: list) }
            var candidates: [String] = []
            for try await hash in try await store.client.query(
                "SELECT hash FROM chunk_index WHERE touched_at < \(cutoff)", logger: store.logger
            ).decode(String.self) where !referenced.mayContain(hash) { candidates.append(hash) }
            guard !candidates.isEmpty else { return ChunkGC.Dropped() }
            let dropped = try await store.client.withTransaction(logger: store.logger) { connection in
                try await drop(candidates, folderRevs: folderRevs, cutoff: cutoff, connection)
            }
            ServerCrashPoint.reached(.afterDrop)
            return dropped
        }
    }

    private func drop(
        _ candidates: [String], folderRevs: [String: Int64], cutoff: Int64, _ connection: PostgresConnection
    ) async throws -> ChunkGC.Dropped {
        var recent = Set<String>()
        var moved: [(String, Int64)] = []
        for try await (folder, rev) in try await connection.query(
            "SELECT id, rev FROM folders ORDER BY id FOR UPDATE", logger: store.logger
        ).decode((String, Int64).self) where rev > (folderRevs[folder] ?? 0) { moved.append((folder, folderRevs[folder] ?? 0)) }
        for (folder, since) in moved {
            for try await list in try await connection.query(
                """
                SELECT chunks FROM versions WHERE folder_id = \(folder) AND rev > \(since) AND NOT deleted AND chunks <> ''
                UNION ALL
                SELECT chunks FROM entries WHERE folder_id = \(folder) AND rev > \(since) AND NOT deleted AND chunks <> ''
                """, logger: store.logger
            ).decode(String.self) { recent.formUnion(list.split(separator: ",").map(String.init)) }
        }
        let doomed = candidates.filter { !recent.contains($0) }
        var dropped = ChunkGC.Dropped()
        for try await length in try await connection.query(
            "DELETE FROM chunk_index WHERE hash = ANY(\(doomed)) AND touched_at < \(cutoff) RETURNING length", logger: store.logger
        ).decode(Int64.self) {
            dropped.chunks += 1
            dropped.bytes += length
        }
        return dropped
    }
}
