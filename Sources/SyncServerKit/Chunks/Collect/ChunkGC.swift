import GRDB

/// Drops the index rows of chunks that no live entry and no kept version references and
/// that nobody uploaded or was told about for the grace period (decision 0012). Their bytes
/// stay in their packs until compaction rewrites or deletes the pack.
///
/// Two steps, so the full scan of references never holds the write lock: candidates are
/// found in one read snapshot (the references, each folder's rev, the unreferenced rows
/// older than the grace period); then, in one write transaction, the commits made since
/// that snapshot (every reference a commit adds is a `versions`/`entries` row with a rev
/// above the folder's rev then) are read and their chunks spared, and the rest are dropped
/// if still older than the grace period. Commits check their chunks inside their own write
/// transaction: a commit either comes before the drop (and its rows spare its chunks) or
/// after it (and finds them missing: the client uploads them again).
enum ChunkGC {
    /// How long an unreferenced chunk is kept after it was last uploaded or reported
    /// present to a client: the time a client may take between its upload and its commit.
    static let graceSeconds: Int64 = 24 * 3600

    struct Candidates: Sendable {
        var hashes: [String] = []
        /// Each folder's rev in the snapshot the candidates were found in.
        var folderRevs: [String: Int64] = [:]
    }

    struct Dropped: Sendable, Equatable {
        var chunks = 0
        var bytes: Int64 = 0
    }

    /// Both steps; `now` in Unix seconds.
    static func collect(pool: DatabasePool, now: Int64, grace: Int64 = graceSeconds) async throws -> Dropped {
        let cutoff = now - grace
        let found = try await pool.read { db in try candidates(db: db, touchedBefore: cutoff) }
        guard !found.hashes.isEmpty else { return Dropped() }
        let dropped = try await pool.write { db in try drop(found, touchedBefore: cutoff, db: db) }
        ServerCrashPoint.reached(.afterDrop)
        return dropped
    }

    /// Step 1 (call in one read transaction): unreferenced rows touched before `cutoff`.
    static func candidates(db: Database, touchedBefore cutoff: Int64) throws -> Candidates {
        var found = Candidates()
        for row in try Row.fetchAll(db, sql: "SELECT id, rev FROM folders") { found.folderRevs[row[0]] = row[1] }
        var referenced = ReferencedChunks()
        let lists = try String.fetchCursor(
            db,
            sql: """
                SELECT chunks FROM entries WHERE deleted = 0 AND chunks != ''
                UNION ALL
                SELECT chunks FROM versions WHERE deleted = 0 AND chunks != ''
                """)
        while let list = try lists.next() { referenced.insert(list: list) }
        let old = try String.fetchCursor(db, sql: "SELECT hash FROM chunk_index WHERE touched_at < ?", arguments: [cutoff])
        while let hash = try old.next() {
            if !referenced.mayContain(hash) { found.hashes.append(hash) }
        }
        return found
    }

    /// Step 2 (call in one write transaction): drops the candidates that no commit since
    /// step 1 references and that are still untouched since `cutoff`.
    static func drop(_ candidates: Candidates, touchedBefore cutoff: Int64, db: Database) throws -> Dropped {
        var recent = Set<String>()
        for row in try Row.fetchAll(db, sql: "SELECT id, rev FROM folders") {
            let folder: String = row[0]
            let since = candidates.folderRevs[folder] ?? 0
            guard row[1] as Int64 > since else { continue }
            let lists = try String.fetchCursor(
                db,
                sql: """
                    SELECT chunks FROM versions WHERE folder_id = ? AND rev > ? AND deleted = 0 AND chunks != ''
                    UNION ALL
                    SELECT chunks FROM entries WHERE folder_id = ? AND rev > ? AND deleted = 0 AND chunks != ''
                    """,
                arguments: [folder, since, folder, since])
            while let list = try lists.next() { recent.formUnion(list.split(separator: ",").map(String.init)) }
        }
        let length = try db.cachedStatement(sql: "SELECT length FROM chunk_index WHERE hash = ? AND touched_at < ?")
        let delete = try db.cachedStatement(sql: "DELETE FROM chunk_index WHERE hash = ?")
        var dropped = Dropped()
        for hash in candidates.hashes where !recent.contains(hash) {
            guard let bytes = try Int64.fetchOne(length, arguments: [hash, cutoff]) else { continue }
            try delete.execute(arguments: [hash])
            dropped.chunks += 1
            dropped.bytes += bytes
        }
        return dropped
    }
}
