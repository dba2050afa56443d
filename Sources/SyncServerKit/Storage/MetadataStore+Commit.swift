import GRDB
import SyncCore

extension MetadataStore {
    /// Applies validated changes in order, in one transaction. Each change is
    /// accepted iff the path's current rev equals its `baseRev` (0 = absent or
    /// a tombstone); accepted changes get the folder's next rev and a history row.
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
            guard var rev = try Int64.fetchOne(db, sql: "SELECT rev FROM folders WHERE id = ?", arguments: [folder])
            else { return nil }
            if let idempotency, let replay = try Self.rememberedReply(db, folder: folder, device: device, idempotency) {
                return replay
            }
            if let checked {
                let sizes = try ChunkIndex.locations(of: checked.chunks, db: db).mapValues(\.length)
                try CommitValidator.checkChunks(checked, sizes: sizes)
            }
            let statements = try CommitStatements(db)
            let now = Self.nowSeconds()
            var results: [CommitResult] = []
            results.reserveCapacity(changes.count)
            var touched: [(path: String, kind: EntryKind)] = []
            for change in changes {
                if let from = change.moveFrom {
                    let result = try statements.move(change, from: from, folder: folder, rev: &rev, device: device, now: now)
                    results.append(result)
                    if result.status == .ok {
                        touched += try statements.liveEntries(at: change.path, folder: folder).map { ($0.path, $0.kind) }
                    }
                    continue
                }
                // Only rev and deleted decide; the whole entry is read for conflicts only.
                let state = try Row.fetchOne(statements.state, arguments: [folder, change.path])
                    .map { (rev: $0[0] as Int64, deleted: $0[1] as Bool) }
                guard Self.accepts(baseRev: change.baseRev, current: state) else {
                    let current = try Row.fetchOne(statements.current, arguments: [folder, change.path])
                        .map(EntryColumns.wireEntry)
                    results.append(CommitResult(path: change.path, status: .conflict, rev: current?.rev ?? 0, current: current))
                    continue
                }
                rev += 1
                try statements.apply(change, folder: folder, rev: rev, device: device, now: now)
                results.append(CommitResult(path: change.path, status: .ok, rev: rev))
                if !change.deleted { touched.append((change.path, change.kind)) }
            }
            try statements.checkNothingBelowSymlinks(touched: touched, folder: folder)
            try db.execute(sql: "UPDATE folders SET rev = ? WHERE id = ?", arguments: [rev, folder])
            let response = CommitResponse(results: results, folderRev: rev)
            if let idempotency { try Self.remember(response, db, folder: folder, device: device, idempotency) }
            return response
        }
    }

    /// The conflict rule.
    static func accepts(baseRev: Int64, current: (rev: Int64, deleted: Bool)?) -> Bool {
        guard let current else { return baseRev == 0 }
        return current.rev == baseRev || (current.deleted && baseRev == 0)
    }
}

/// Prepared statements of one commit transaction (the hot path: no records, no reparsing).
struct CommitStatements {
    let db: Database
    let state: Statement
    let current: Statement
    let upsert: Statement
    let history: Statement

    init(_ db: Database) throws {
        self.db = db
        state = try db.cachedStatement(sql: "SELECT rev, deleted FROM entries WHERE folder_id = ? AND path = ?")
        current = try db.cachedStatement(
            sql: "SELECT \(EntryColumns.select) FROM entries WHERE folder_id = ? AND path = ?")
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

    func apply(
        _ change: CommitChange, folder: String, rev: Int64, device: String, now: Int64, movedFrom: String? = nil,
        movedTo: String? = nil
    ) throws {
        let chunks = change.chunks.joined(separator: ",")
        let mode = Int64(change.mode)
        let kind = change.kind.rawValue
        upsert.setUncheckedArguments([
            folder, change.path, kind, change.size, change.mtimeNs, mode, chunks, change.contentHash,
            change.deleted, rev, change.symlinkTarget, device, movedFrom, movedTo,
        ])
        try upsert.execute()
        history.setUncheckedArguments([
            folder, rev, change.path, kind, change.size, change.mtimeNs, mode, chunks, change.contentHash,
            change.deleted, change.symlinkTarget, device, now, movedFrom, movedTo,
        ])
        try history.execute()
    }
}
