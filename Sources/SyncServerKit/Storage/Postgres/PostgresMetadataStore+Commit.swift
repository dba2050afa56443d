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
                try await write(plan.writes, folder: folder, now: MetadataStore.nowSeconds(), connection)
                try await connection.query("UPDATE folders SET rev = \(plan.rev) WHERE id = \(folder)", logger: logger)
                if plan.rev > rev {
                    // Delivered to every listening instance when (and only if) this commits.
                    try await connection.query(
                        "SELECT pg_notify(\(PostgresCommitListener.channel), \(PostgresCommitListener.payload(folder: folder, rev: plan.rev)))",
                        logger: logger)
                }
                let response = CommitResponse(results: plan.results, folderRev: plan.rev)
                if let idempotency { try await remember(response, connection, folder: folder, device: device, idempotency) }
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

    /// Each entry becomes a history row, and the last one at each path its current row: two
    /// statements whatever the count (arrays unnested on the server; '' stands for NULL).
    private func write(_ entries: [WireEntry], folder: String, now: Int64, _ connection: PostgresConnection) async throws {
        guard !entries.isEmpty else { return }
        let all = Columns(entries)
        try await connection.query(
            """
            INSERT INTO versions (folder_id, rev, path, kind, size, mtime_ns, mode, chunks, content_hash,
                                  deleted, symlink_target, device_id, committed_at, moved_from, moved_to)
            SELECT \(folder), r, p, k, s, m, mo, c, h, d, NULLIF(t, ''), NULLIF(dv, ''), \(now), NULLIF(mf, ''), NULLIF(mt, '')
            FROM unnest(\(all.path)::text[], \(all.kind)::text[], \(all.size)::bigint[], \(all.mtime)::bigint[],
                        \(all.mode)::bigint[], \(all.chunks)::text[], \(all.hash)::text[], \(all.deleted)::boolean[],
                        \(all.rev)::bigint[], \(all.target)::text[], \(all.device)::text[], \(all.movedFrom)::text[],
                        \(all.movedTo)::text[]) AS u(p, k, s, m, mo, c, h, d, r, t, dv, mf, mt)
            """, logger: logger)
        var last: [String: Int] = [:]
        for (index, entry) in entries.enumerated() { last[entry.path] = index }
        let current = last.count == entries.count ? all : Columns(last.values.sorted().map { entries[$0] })
        try await connection.query(
            """
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
