import GRDB

/// What compaction reads and writes in the index.
extension ChunkIndex {
    /// Every pack the index knows, with its live chunks.
    func usage() async throws -> [PackUsage] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.id, p.durable_length, p.sealed, p.retired, count(c.hash), coalesce(sum(c.length), 0)
                    FROM packs p LEFT JOIN chunk_index c ON c.pack_id = p.id
                    GROUP BY p.id ORDER BY p.id
                    """
            ).map { row in
                let chunks: Int = row[4]
                let bytes: Int64 = row[5]
                return PackUsage(
                    pack: row[0], size: row[1], liveBytes: bytes + Int64(chunks * PackRecord.headerSize), liveChunks: chunks,
                    sealed: row[2], retired: row[3])
            }
        }
    }

    /// The live chunks of `pack`, in pack order.
    func chunks(in pack: PackID) async throws -> [ScannedRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT hash, offset, length FROM chunk_index WHERE pack_id = ? ORDER BY offset", arguments: [pack])
                .map { ScannedRecord(hash: $0[0], location: ChunkLocation(pack: pack, offset: $0[1], length: $0[2])) }
        }
    }

    /// A chunk copied by compaction: where its row pointed, and where its copy is.
    struct Move: Sendable {
        var hash: String
        var from: ChunkLocation
        var to: ChunkLocation
    }

    /// In one transaction: records the copies' packs (durable lengths, and those sealed on
    /// the way), points each row still at its old place to its copy, and retires `pack`
    /// if no row is left in it. Returns whether it was retired.
    func move(
        _ moves: [Move], out pack: PackID, written: [PackID: Int64], sealed: [PackID]
    ) async throws -> Bool {
        try await pool.write { db in
            for (target, length) in written.sorted(by: { $0.key < $1.key }) {
                try db.execute(
                    sql: """
                        INSERT INTO packs (id, durable_length) VALUES (?, ?)
                        ON CONFLICT(id) DO UPDATE SET durable_length = max(durable_length, excluded.durable_length)
                        """,
                    arguments: [target, length])
            }
            for target in sealed { try db.execute(sql: "UPDATE packs SET sealed = 1 WHERE id = ?", arguments: [target]) }
            // The row takes the copy's checksum, taken from bytes just checked against the hash
            // (decision 0028): one missing (a row from before v10) or wrong is set right.
            let update = try db.cachedStatement(
                sql: """
                    UPDATE chunk_index SET pack_id = ?, offset = ?, checksum = ?
                    WHERE hash = ? AND pack_id = ? AND offset = ?
                    """)
            for move in moves {
                try update.execute(
                    arguments: [move.to.pack, move.to.offset, move.to.checksum, move.hash, move.from.pack, move.from.offset])
            }
            return try Self.retireIfEmpty(pack, db: db)
        }
    }

    /// Retires a sealed pack that no row points into (true), or says it already was.
    func retireIfEmpty(_ pack: PackID) async throws -> Bool {
        try await pool.write { db in try Self.retireIfEmpty(pack, db: db) }
    }

    private static func retireIfEmpty(_ pack: PackID, db: Database) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE packs SET retired = 1
                WHERE id = ? AND sealed = 1 AND NOT EXISTS (SELECT 1 FROM chunk_index WHERE pack_id = ?)
                """,
            arguments: [pack, pack])
        return try Bool.fetchOne(db, sql: "SELECT retired FROM packs WHERE id = ?", arguments: [pack]) ?? false
    }

    /// Forgets a retired pack whose file was deleted.
    func forgetRetired(_ pack: PackID) async throws {
        try await pool.write { db in try db.execute(sql: "DELETE FROM packs WHERE id = ? AND retired = 1", arguments: [pack]) }
    }
}
