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
        var start = 0
        while start < hashes.count {
            let part = Array(hashes[start..<min(start + queryBatch, hashes.count)])
            start += queryBatch
            let marks = Array(repeating: "?", count: part.count).joined(separator: ",")
            let rows = try Row.fetchCursor(
                db, sql: "SELECT hash, pack_id, offset, length FROM chunk_index WHERE hash IN (\(marks))",
                arguments: StatementArguments(part))
            while let row = try rows.next() {
                found[row[0]] = ChunkLocation(pack: row[1], offset: row[2], length: row[3])
            }
        }
        return found
    }

    /// Records chunks just made durable in `pack` (whose bytes up to `durableLength` are
    /// on disk); a hash already indexed keeps its row. Returns, per chunk, whether its row is new.
    func insert(_ chunks: [(hash: String, location: ChunkLocation)], pack: PackID, durableLength: Int64) async throws -> [Bool] {
        try await pool.write { db in try Self.insert(chunks, pack: pack, durableLength: durableLength, db: db) }
    }

    static func insert(
        _ chunks: [(hash: String, location: ChunkLocation)], pack: PackID, durableLength: Int64, db: Database
    ) throws -> [Bool] {
        try db.execute(
            sql: """
                INSERT INTO packs (id, durable_length) VALUES (?, ?)
                ON CONFLICT(id) DO UPDATE SET durable_length = max(durable_length, excluded.durable_length)
                """,
            arguments: [pack, durableLength])
        let statement = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO chunk_index (hash, pack_id, offset, length) VALUES (?, ?, ?, ?)")
        var created: [Bool] = []
        created.reserveCapacity(chunks.count)
        for chunk in chunks {
            try statement.execute(arguments: [chunk.hash, chunk.location.pack, chunk.location.offset, chunk.location.length])
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
    }

    func packRows() throws -> [PackID: PackRow] {
        try pool.read { db in
            var rows: [PackID: PackRow] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, durable_length, sealed FROM packs") {
                rows[row[0]] = PackRow(durableLength: row[1], sealed: row[2])
            }
            return rows
        }
    }

    /// Makes the index agree with a verified pack: rows of `pack` that no verified record
    /// backs are dropped (returned), verified records not yet indexed are added (unless
    /// the hash is indexed elsewhere), and the pack is recorded as sealed at `validEnd`.
    func reconcile(pack: PackID, verified: [ScannedRecord], validEnd: Int64) throws -> [String] {
        try pool.write { db in
            let good = Dictionary(verified.map { ($0.hash, $0.location) }, uniquingKeysWith: { first, _ in first })
            var dropped: [String] = []
            for row in try Row.fetchAll(db, sql: "SELECT hash, offset, length FROM chunk_index WHERE pack_id = ?", arguments: [pack]) {
                let hash: String = row[0]
                if good[hash] != ChunkLocation(pack: pack, offset: row[1], length: row[2]) { dropped.append(hash) }
            }
            for hash in dropped { try db.execute(sql: "DELETE FROM chunk_index WHERE hash = ?", arguments: [hash]) }
            _ = try Self.insert(verified.map { ($0.hash, $0.location) }, pack: pack, durableLength: validEnd, db: db)
            try db.execute(sql: "UPDATE packs SET durable_length = ?, sealed = 1 WHERE id = ?", arguments: [validEnd, pack])
            return dropped
        }
    }

    /// Forgets a pack whose file is gone; returns the hashes that were indexed in it.
    func dropPack(_ pack: PackID) throws -> [String] {
        try pool.write { db in
            let hashes = try String.fetchAll(db, sql: "SELECT hash FROM chunk_index WHERE pack_id = ?", arguments: [pack])
            try db.execute(sql: "DELETE FROM chunk_index WHERE pack_id = ?", arguments: [pack])
            try db.execute(sql: "DELETE FROM packs WHERE id = ?", arguments: [pack])
            return hashes
        }
    }
}
