import GRDB
import SyncCore

/// `local_chunks`: which local files hold which chunks, for downloads to take a chunk
/// from a file here instead of fetching it. Only files of more than one chunk are
/// listed (a one-chunk file is found by its content hash); kept in step with
/// `local_files` in the same transaction.
struct LocalChunkStore: Sendable {
    let pool: DatabasePool
    static let table = "local_chunks"

    /// Local files (of more than one chunk) that hold any of `hashes`, a few at most.
    func files(folder: String, sharingChunksWith hashes: [String], limit: Int) throws -> [LocalRecord] {
        let files = LocalFileStore(pool: pool)
        return try pool.read { db in
            var paths: [String] = []
            for slice in IndexSQL.slices(hashes) {
                paths += try String.fetchAll(
                    db,
                    sql: "SELECT DISTINCT path FROM local_chunks WHERE folder_id = ? AND hash IN (\(IndexSQL.marks(slice.count))) LIMIT ?",
                    arguments: StatementArguments([folder] + Array(slice)) + [limit])
                if Set(paths).count >= limit { break }
            }
            return try Array(Set(paths)).sorted().prefix(limit).compactMap { path in
                try files.record(folder: folder, path: path, in: db)
            }
        }
    }

    /// Lists the chunks of `records` as `LocalFileStore.put` wrote them (`written`, one per
    /// record): a path whose content stayed keeps its listing, a new one had none to drop (every
    /// write of `local_files` writes this table in the same transaction, `RecordStore.apply`:
    /// no row here outlives its path's record).
    func put(folder: String, _ records: [LocalRecord], written: [LocalFileStore.Written], in db: Database) throws {
        precondition(records.count == written.count, "one way written per record")
        let drop = try db.cachedStatement(sql: "DELETE FROM local_chunks WHERE folder_id = ? AND path = ?")
        let put = try db.cachedStatement(sql: "INSERT INTO local_chunks (folder_id, hash, path) VALUES (?, ?, ?)")
        for (l, how) in zip(records, written) where how != .sameContent {
            if how == .replaced { try drop.execute(arguments: [folder, l.path]) }
            if l.kind == .file && l.chunks.count > 1 {
                for hash in Set(l.chunks) { try put.execute(arguments: [folder, hash, l.path]) }
            }
        }
    }

    func remove(folder: String, under path: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM local_chunks WHERE \(IndexSQL.subtree)")
            .execute(arguments: IndexSQL.subtree(folder: folder, path))
    }

    func rename(folder: String, from: String, to: String, in db: Database) throws {
        try IndexSQL.renameSubtree(table: Self.table, folder: folder, from: from, to: to, in: db)
    }
}
