import GRDB

extension ChunkIndex {
    /// Where each of `hashes` is, for an answer that tells a client a chunk is stored
    /// (`chunks/missing`, an upload of a chunk already there), which the client's commit
    /// will rely on. A row whose grace period is more than half over is renewed
    /// (`touched_at` = now) in a write transaction that reads it again: that transaction and
    /// the collector's drop serialize, so a chunk reported present is not collected for at
    /// least half the grace period after the answer (decision 0012). Absent ones are left out.
    func locationsRenewing(
        _ hashes: [String], now: Int64, grace: Int64
    ) async throws -> [String: ChunkLocation] {
        let found = try await pool.read { db in try Self.touched(hashes, db: db) }
        let stale = found.filter { $0.value.touchedAt < now - grace / 2 }.map(\.key)
        var result = found.mapValues(\.location)
        guard !stale.isEmpty else { return result }
        let renewed = try await pool.write { db in
            let still = try Self.touched(stale, db: db)
            let touch = try db.cachedStatement(sql: "UPDATE chunk_index SET touched_at = ? WHERE hash = ?")
            for hash in still.keys { try touch.execute(arguments: [now, hash]) }
            return still.mapValues(\.location)
        }
        for hash in stale { result[hash] = renewed[hash] }
        return result
    }

    private static func touched(_ hashes: [String], db: Database) throws -> [String: (location: ChunkLocation, touchedAt: Int64)] {
        var found: [String: (location: ChunkLocation, touchedAt: Int64)] = [:]
        try forEachRow(of: hashes, columns: "hash, pack_id, offset, length, touched_at, checksum", db: db) { row in
            found[row[0]] = (ChunkLocation(pack: row[1], offset: row[2], length: row[3], checksum: row[5]), row[4])
        }
        return found
    }
}
