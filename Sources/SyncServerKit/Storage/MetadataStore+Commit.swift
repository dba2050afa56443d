import GRDB
import SyncCore

extension MetadataStore {
    /// Applies validated changes in order, in one transaction, as `CommitPlan` decides.
    /// Returns nil if the folder does not exist.
    ///
    /// With `idempotency` (a commit id and the hash of the request), a commit
    /// already applied returns its remembered reply and applies nothing.
    ///
    /// With `checked`, every chunk its live files reference must be in the chunk index, read
    /// in this same write transaction (else `missing_chunks`, nothing applied). The index
    /// holds only chunks whose bytes were fsynced before they were indexed, so what passes
    /// is durable; and the collector drops rows in write transactions too, so a chunk that
    /// passes cannot be dropped before this commit's rows reference it (decision 0012).
    func commit(
        folder: String, device: String, changes: [CommitChange], idempotency: (id: String, requestHash: String)? = nil,
        checkingChunksOf checked: CommitValidator.Checked? = nil
    ) async throws -> CommitResponse? {
        try await pool.write { db in
            guard let rev = try Int64.fetchOne(db, sql: "SELECT rev FROM folders WHERE id = ?", arguments: [folder])
            else { return nil }
            if let idempotency, let replay = try Self.rememberedReply(db, folder: folder, device: device, idempotency) {
                return replay
            }
            if let checked {
                let sizes = try ChunkIndex.locations(of: checked.chunks, db: db).mapValues(\.length)
                try CommitValidator.checkChunks(checked, sizes: sizes)
            }
            let statements = try CommitStatements(db)
            var plan = CommitPlan(
                changes: changes, folderRev: rev, device: device,
                base: try statements.read(CommitPlan.reads(of: changes), folder: folder))
            plan.add(try statements.read(plan.containmentReads(), folder: folder))
            try plan.checkContainment()
            try statements.write(plan.writes, folder: folder, now: Self.nowSeconds())
            try db.execute(sql: "UPDATE folders SET rev = ? WHERE id = ?", arguments: [plan.rev, folder])
            let response = CommitResponse(results: plan.results, folderRev: plan.rev)
            if let idempotency { try Self.remember(response, db, folder: folder, device: device, idempotency) }
            return response
        }
    }
}

/// Prepared statements of one commit transaction (the hot path: no records, no reparsing).
struct CommitStatements {
    let db: Database
    let current: Statement
    let liveBelow: Statement
    let upsert: Statement
    let history: Statement

    init(_ db: Database) throws {
        self.db = db
        current = try db.cachedStatement(
            sql: "SELECT \(EntryColumns.select) FROM entries WHERE folder_id = ? AND path = ?")
        liveBelow = try db.cachedStatement(sql: """
            SELECT \(EntryColumns.select) FROM entries
            WHERE folder_id = ? AND path >= ? AND path < ? AND deleted = 0 ORDER BY path
            """)
        upsert = try db.cachedStatement(
            sql: """
                INSERT INTO entries (folder_id, path, kind, size, mtime_ns, mode, chunks, content_hash,
                                     deleted, rev, symlink_target, device_id, moved_from, moved_to)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (folder_id, path) DO UPDATE SET
                    kind = excluded.kind, size = excluded.size, mtime_ns = excluded.mtime_ns,
                    mode = excluded.mode, chunks = excluded.chunks, content_hash = excluded.content_hash,
                    deleted = excluded.deleted, rev = excluded.rev,
                    symlink_target = excluded.symlink_target, device_id = excluded.device_id,
                    moved_from = excluded.moved_from, moved_to = excluded.moved_to
                """)
        history = try db.cachedStatement(
            sql: """
                INSERT INTO versions (folder_id, rev, path, kind, size, mtime_ns, mode, chunks, content_hash,
                                      deleted, symlink_target, device_id, committed_at, moved_from, moved_to)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
    }

    /// The rows `reads` names ('/' + 1 is '0': `path/…` sorts between `path/` and `path0`).
    func read(_ reads: CommitReads, folder: String) throws -> CommitSnapshot {
        var snapshot = CommitSnapshot()
        for path in reads.paths {
            if let row = try Row.fetchOne(current, arguments: [folder, path]) {
                snapshot.entries[path] = try EntryColumns.wireEntry(row)
            }
        }
        for path in reads.subtrees {
            snapshot.below[path] = try EntryColumns.fetchAll(liveBelow, arguments: [folder, path + "/", path + "0"])
        }
        return snapshot
    }

    /// Each entry becomes its path's current row and a history row, in order.
    func write(_ entries: [WireEntry], folder: String, now: Int64) throws {
        for entry in entries {
            let chunks = entry.chunks.joined(separator: ",")
            let mode = Int64(entry.mode)
            let kind = entry.kind.rawValue
            upsert.setUncheckedArguments([
                folder, entry.path, kind, entry.size, entry.mtimeNs, mode, chunks, entry.contentHash,
                entry.deleted, entry.rev, entry.symlinkTarget, entry.device, entry.movedFrom, entry.movedTo,
            ])
            try upsert.execute()
            history.setUncheckedArguments([
                folder, entry.rev, entry.path, kind, entry.size, entry.mtimeNs, mode, chunks, entry.contentHash,
                entry.deleted, entry.symlinkTarget, entry.device, now, entry.movedFrom, entry.movedTo,
            ])
            try history.execute()
        }
    }
}
