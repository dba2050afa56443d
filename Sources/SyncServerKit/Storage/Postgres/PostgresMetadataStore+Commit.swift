import Foundation
import PostgresNIO
import SyncCore

extension PostgresMetadataStore {
    /// Applies validated changes in order, in one transaction, as `CommitPlan` decides (the
    /// same contract as `MetadataStore.commit`). The folder's row is locked (`FOR UPDATE`)
    /// first: commits to one folder from any number of instances run one after the other,
    /// each reading the revision the previous one left, so revisions stay gap-free and in
    /// commit order. A commit that applied something notifies `PostgresCommitListener.channel`,
    /// which every instance listens on to wake its long-polls. The chunks it checks are
    /// key-share-locked until it ends: the collector cannot drop them in between (renewals and
    /// compaction's moves change no key and are not held up, nor can they deadlock with it).
    ///
    /// Few round trips while the lock is held (commits to one folder queue behind it): the
    /// lock, the remembered reply (a statement of its own after the lock: one that waited for
    /// the lock sees the reply of the commit it waited for), the chunk check and the plan's
    /// reads, then every write, the revision, the remembered reply and the notification in
    /// one statement, read to its end (its errors reach only its rows).
    func commit(
        folder: String, device: String, changes: [CommitChange], idempotency: (id: String, requestHash: String)? = nil,
        checkingChunksOf checked: CommitValidator.Checked? = nil
    ) async throws -> CommitResponse? {
        try await run {
            try await client.withTransaction(logger: logger) { connection -> CommitResponse? in
                var rev: Int64?
                for try await value in try await connection.query(
                    "SELECT rev FROM folders WHERE id = \(folder) FOR UPDATE", logger: logger
                ).decode(Int64.self) { rev = value }
                guard let rev else { return nil }
                if let idempotency, let replay = try await rememberedReply(connection, folder: folder, device: device, idempotency) {
                    return replay
                }
                if let checked {
                    var sizes: [String: Int64] = [:]
                    for try await (hash, length) in try await connection.query(
                        "SELECT hash, length FROM chunk_index WHERE hash = ANY(\(checked.chunks)) FOR KEY SHARE", logger: logger
                    ).decode((String, Int64).self) { sizes[hash] = length }
                    try CommitValidator.checkChunks(checked, sizes: sizes)
                }
                var plan = CommitPlan(
                    changes: changes, folderRev: rev, device: device,
                    base: try await read(CommitPlan.reads(of: changes), folder: folder, connection))
                plan.add(try await read(plan.containmentReads(), folder: folder, connection))
                try plan.checkContainment()
                let response = CommitResponse(results: plan.results, folderRev: plan.rev)
                try await write(
                    plan.writes, rev: plan.rev, notify: plan.rev > rev, folder: folder, now: MetadataStore.nowSeconds(),
                    remembering: idempotency.map { (id: $0.id, requestHash: $0.requestHash, device: device, reply: Self.json(response)) },
                    connection)
                return response
            }
        }
    }

    /// The rows `reads` names ('/' + 1 is '0': `path/…` sorts between `path/` and `path0`).
    private func read(_ reads: CommitReads, folder: String, _ connection: PostgresConnection) async throws -> CommitSnapshot {
        var snapshot = CommitSnapshot()
        if !reads.paths.isEmpty {
            let rows = try await connection.query(
                "SELECT \(unescaped: PostgresEntryRows.select) FROM entries WHERE folder_id = \(folder) AND path = ANY(\(Array(reads.paths)))",
                logger: logger)
            for entry in try await PostgresEntryRows.entries(rows) { snapshot.entries[entry.path] = entry }
        }
        for path in reads.subtrees {
            let rows = try await connection.query(
                """
                SELECT \(unescaped: PostgresEntryRows.select) FROM entries
                WHERE folder_id = \(folder) AND path >= \(path + "/") AND path < \(path + "0") AND NOT deleted ORDER BY path
                """, logger: logger)
            snapshot.below[path] = try await PostgresEntryRows.entries(rows)
        }
        return snapshot
    }

    /// One statement: each entry becomes a history row, and the last one at each path its
    /// current row (arrays unnested on the server; '' stands for NULL); the folder takes its new
    /// revision; the reply is remembered (with a commit_id); and, when something was applied,
    /// every listening instance is notified (delivered when, and only if, this commits).
    private func write(
        _ entries: [WireEntry], rev: Int64, notify: Bool, folder: String, now: Int64,
        remembering: (id: String, requestHash: String, device: String, reply: String)?, _ connection: PostgresConnection
    ) async throws {
        let all = Columns(entries)
        var last: [String: Int] = [:]
        for (index, entry) in entries.enumerated() { last[entry.path] = index }
        let current = last.count == entries.count ? all : Columns(last.values.sorted().map { entries[$0] })
        try await connection.execute(
            """
            WITH history_rows AS (
                INSERT INTO versions (folder_id, rev, path, kind, size, mtime_ns, mode, chunks, content_hash,
                                      deleted, symlink_target, device_id, committed_at, moved_from, moved_to)
                SELECT \(folder), r, p, k, s, m, mo, c, h, d, NULLIF(t, ''), NULLIF(dv, ''), \(now), NULLIF(mf, ''), NULLIF(mt, '')
                FROM unnest(\(all.path)::text[], \(all.kind)::text[], \(all.size)::bigint[], \(all.mtime)::bigint[],
                            \(all.mode)::bigint[], \(all.chunks)::text[], \(all.hash)::text[], \(all.deleted)::boolean[],
                            \(all.rev)::bigint[], \(all.target)::text[], \(all.device)::text[], \(all.movedFrom)::text[],
                            \(all.movedTo)::text[]) AS u(p, k, s, m, mo, c, h, d, r, t, dv, mf, mt)
            ), current_rows AS (
                INSERT INTO entries (folder_id, path, kind, size, mtime_ns, mode, chunks, content_hash,
                                     deleted, rev, symlink_target, device_id, moved_from, moved_to)
                SELECT \(folder), p, k, s, m, mo, c, h, d, r, NULLIF(t, ''), NULLIF(dv, ''), NULLIF(mf, ''), NULLIF(mt, '')
                FROM unnest(\(current.path)::text[], \(current.kind)::text[], \(current.size)::bigint[], \(current.mtime)::bigint[],
                            \(current.mode)::bigint[], \(current.chunks)::text[], \(current.hash)::text[], \(current.deleted)::boolean[],
                            \(current.rev)::bigint[], \(current.target)::text[], \(current.device)::text[], \(current.movedFrom)::text[],
                            \(current.movedTo)::text[]) AS u(p, k, s, m, mo, c, h, d, r, t, dv, mf, mt)
                ON CONFLICT (folder_id, path) DO UPDATE SET
                    kind = EXCLUDED.kind, size = EXCLUDED.size, mtime_ns = EXCLUDED.mtime_ns, mode = EXCLUDED.mode,
                    chunks = EXCLUDED.chunks, content_hash = EXCLUDED.content_hash, deleted = EXCLUDED.deleted,
                    rev = EXCLUDED.rev, symlink_target = EXCLUDED.symlink_target, device_id = EXCLUDED.device_id,
                    moved_from = EXCLUDED.moved_from, moved_to = EXCLUDED.moved_to
            ), reply_row AS (
                INSERT INTO commit_replies (folder_id, device_id, commit_id, request_hash, response, created_at)
                SELECT \(folder), \(remembering?.device), \(remembering?.id), \(remembering?.requestHash), \(remembering?.reply), \(now)
                WHERE \(remembering != nil)
            ), folder_row AS (
                UPDATE folders SET rev = \(rev) WHERE id = \(folder) RETURNING id
            )
            SELECT pg_notify(\(PostgresCommitListener.channel), \(PostgresCommitListener.payload(folder: folder, rev: rev)))
            FROM folder_row WHERE \(notify)
            """, logger: logger)
    }

    /// Entries as one array per column.
    private struct Columns {
        var path: [String] = [], kind: [String] = [], size: [Int64] = [], mtime: [Int64] = [], mode: [Int64] = []
        var chunks: [String] = [], hash: [String] = [], deleted: [Bool] = [], rev: [Int64] = []
        var target: [String] = [], device: [String] = [], movedFrom: [String] = [], movedTo: [String] = []

        init(_ entries: [WireEntry]) {
            for entry in entries {
                path.append(entry.path)
                kind.append(entry.kind.rawValue)
                size.append(entry.size)
                mtime.append(entry.mtimeNs)
                mode.append(Int64(entry.mode))
                chunks.append(entry.chunks.joined(separator: ","))
                hash.append(entry.contentHash)
                deleted.append(entry.deleted)
                rev.append(entry.rev)
                target.append(entry.symlinkTarget ?? "")
                device.append(entry.device ?? "")
                movedFrom.append(entry.movedFrom ?? "")
                movedTo.append(entry.movedTo ?? "")
            }
        }
    }
}
