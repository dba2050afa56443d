import GRDB

extension ChunkIndex {
    /// How many chunks the index holds, and their bytes (the `stored_chunks` gauges).
    func totals() async throws -> (chunks: Int64, bytes: Int64) {
        try await pool.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(length), 0) FROM chunk_index")
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }
}
