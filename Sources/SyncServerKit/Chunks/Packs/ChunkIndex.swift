import Foundation
import GRDB

/// The chunk index in the metadata database: hash → (pack, offset, length), and the packs
/// table (each pack's durable length and whether it was sealed). A row is written only
/// after the bytes it points to were fsynced.
struct ChunkIndex: Sendable {
    let pool: DatabasePool

    /// SQLite's default limit on bound parameters is far above this; the batches keep
    /// statements small.
    private static let queryBatch = 500

    /// Where each of `hashes` is; absent ones are left out.
    func locations(of hashes: [String]) async throws -> [String: ChunkLocation] {
        try await pool.read { db in try Self.locations(of: hashes, db: db) }
    }

    static func locations(of hashes: [String], db: Database) throws -> [String: ChunkLocation] {
        var found: [String: ChunkLocation] = [:]
        try forEachRow(of: hashes, columns: "hash, pack_id, offset, length, checksum", db: db) { row in
            found[row[0]] = ChunkLocation(pack: row[1], offset: row[2], length: row[3], checksum: row[4])
        }
        return found
    }

    /// Calls `body` with `columns` of the row of each of `hashes` that is indexed.
    static func forEachRow(of hashes: [String], columns: String, db: Database, _ body: (Row) throws -> Void) throws {
        var start = 0
        while start < hashes.count {
            let part = Array(hashes[start..<min(start + queryBatch, hashes.count)])
            start += queryBatch
            let marks = Array(repeating: "?", count: part.count).joined(separator: ",")
            let rows = try Row.fetchCursor(
                db, sql: "SELECT \(columns) FROM chunk_index WHERE hash IN (\(marks))", arguments: StatementArguments(part))
            while let row = try rows.next() { try body(row) }
        }
    }

    /// Records chunks just made durable in `pack` (whose bytes up to `durableLength` are
    /// on disk); a hash already indexed keeps its row. Returns, per chunk, whether its row is new.
    /// `sealed`: record the pack as sealed too (a pack of its own, already in the blob store).
    func insert(
        _ chunks: [(hash: String, location: ChunkLocation)], pack: PackID, durableLength: Int64, sealed: Bool = false
    ) async throws -> [Bool] {
        try await pool.write { db in
            let created = try Self.insert(chunks, pack: pack, durableLength: durableLength, db: db)
            if sealed { try db.execute(sql: "UPDATE packs SET sealed = 1 WHERE id = ?", arguments: [pack]) }
            return created
        }
    }

    /// Fails (`PackRetired`) if the pack was retired by compaction after the bytes were
    /// appended to it: its file is being deleted, so nothing may point into it.
    static func insert(
        _ chunks: [(hash: String, location: ChunkLocation)], pack: PackID, durableLength: Int64, db: Database,
        now: Int64 = MetadataStore.nowSeconds()
    ) throws -> [Bool] {
        if try Bool.fetchOne(db, sql: "SELECT retired FROM packs WHERE id = ?", arguments: [pack]) == true {
            throw PackRetired(pack: pack)
        }
        try db.execute(
            sql: """
                INSERT INTO packs (id, durable_length) VALUES (?, ?)
                ON CONFLICT(id) DO UPDATE SET durable_length = max(durable_length, excluded.durable_length)
                """,
            arguments: [pack, durableLength])
        let statement = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO chunk_index (hash, pack_id, offset, length, touched_at, checksum) VALUES (?, ?, ?, ?, ?, ?)")
        var created: [Bool] = []
        created.reserveCapacity(chunks.count)
        for chunk in chunks {
            let location = chunk.location
            try statement.execute(arguments: [chunk.hash, location.pack, location.offset, location.length, now, location.checksum])
            created.append(db.changesCount > 0)
        }
        return created
    }

    func markSealed(_ packs: [PackID]) async throws {
        guard !packs.isEmpty else { return }
        try await pool.write { db in
            for pack in packs { try db.execute(sql: "UPDATE packs SET sealed = 1 WHERE id = ?", arguments: [pack]) }
        }
    }
}

/// What the start-up check needs of the index (blocking: it runs before the server serves).
extension ChunkIndex {
    struct PackRow: Sendable {
        var durableLength: Int64
        var sealed: Bool
        var retired = false
    }

    func packRowsBlocking() throws -> [PackID: PackRow] {
        try pool.read { db in
            var rows: [PackID: PackRow] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, durable_length, sealed, retired FROM packs") {
                rows[row[0]] = PackRow(durableLength: row[1], sealed: row[2], retired: row[3])
            }
            return rows
        }
    }

    /// Makes the index agree with a verified pack: rows of `pack` that no verified record
    /// backs are dropped (returned), verified records from `trustedEnd` on that are not yet
    /// indexed are added (unless the hash is indexed elsewhere), and the pack is recorded as
    /// sealed at `validEnd`. Below `trustedEnd` the index was written after the bytes, so a
    /// record it does not name there is garbage (collected, a duplicate, or a compaction's
    /// copy whose rows never moved) and is not brought back.
    func reconcileBlocking(pack: PackID, verified: [ScannedRecord], validEnd: Int64, trustedEnd: Int64) throws -> [String] {
        try pool.write { db in
            let good = Dictionary(verified.map { ($0.hash, $0.location) }, uniquingKeysWith: { first, _ in first })
            var dropped: [String] = []
            for row in try Row.fetchAll(db, sql: "SELECT hash, offset, length FROM chunk_index WHERE pack_id = ?", arguments: [pack]) {
                let hash: String = row[0]
                if !ChunkLocation(pack: pack, offset: row[1], length: row[2]).isSamePlace(as: good[hash]) { dropped.append(hash) }
            }
            for hash in dropped { try db.execute(sql: "DELETE FROM chunk_index WHERE hash = ?", arguments: [hash]) }
            let fresh = verified.filter { $0.location.recordStart >= trustedEnd }
            _ = try Self.insert(fresh.map { ($0.hash, $0.location) }, pack: pack, durableLength: validEnd, db: db)
            try db.execute(sql: "UPDATE packs SET durable_length = ?, sealed = 1 WHERE id = ?", arguments: [validEnd, pack])
            return dropped
        }
    }

    /// Forgets a pack whose file is gone (or a retired one, which has no rows); returns the
    /// hashes that were indexed in it.
    func dropPackBlocking(_ pack: PackID) throws -> [String] {
        try pool.write { db in
            let hashes = try String.fetchAll(db, sql: "SELECT hash FROM chunk_index WHERE pack_id = ?", arguments: [pack])
            try db.execute(sql: "DELETE FROM chunk_index WHERE pack_id = ?", arguments: [pack])
            try db.execute(sql: "DELETE FROM packs WHERE id = ?", arguments: [pack])
            return hashes
        }
    }
}
