import Foundation

/// The start-up step for packs in object storage, after `recover()` has checked the local
/// files: retired packs are deleted from the bucket, packs still local (an append whose
/// upload did not finish, a pack `recover()` just sealed) are uploaded, rows of packs that
/// are nowhere are dropped (clients are told those chunks are missing), and objects no row
/// names (an upload whose chunks were never indexed: its client was not answered) are
/// deleted (only with an index no other server uses: with PostgreSQL another instance may
/// be uploading them). Run before serving, by the one process holding the data directory.
extension ChunkStore {
    struct RemoteRecovery: Sendable, Equatable {
        var retiredRemoved = 0
        var uploaded = 0
        var orphansDeleted = 0
        var dropped: [String] = []
    }

    @discardableResult
    func recoverRemote() async throws -> RemoteRecovery {
        guard let store = blobs as? S3BlobStore else { return RemoteRecovery() }
        var report = RemoteRecovery()
        var remote = try await store.remote()
        for (id, row) in try await index.packRows().sorted(by: { $0.key < $1.key }) where row.retired {
            if remote[id] != nil { try await store.delete(pack: id) }
            _ = try await index.dropPack(id)
            remote[id] = nil
            report.retiredRemoved += 1
        }
        let files = packFiles
        for (id, size) in try await offload({ try files.listBlocking() }).sorted(by: { $0.key < $1.key }) {
            try await store.put(pack: id, file: files.path(of: id))
            try await index.markSealed([id])
            remote[id] = size
            report.uploaded += 1
        }
        let rows = try await index.packRows()
        for id in rows.keys.sorted() where remote[id] == nil {
            // Asked again: another instance (shared index) may have uploaded it after the listing,
            // then indexed it before `packRows` (a pack is always uploaded before it is indexed).
            if let size = try await store.size(of: id) {
                remote[id] = size
                continue
            }
            let lost = try await index.dropPack(id)
            report.dropped += lost
            logger.error(
                "pack \(store.name(of: id)) is missing from the bucket: the \(lost.count) chunk(s) indexed in it are forgotten (clients are told they are missing)")
        }
        for (id, row) in rows where remote[id].map({ $0 != row.durableLength }) == true && row.sealed {
            logger.error(
                "pack \(store.name(of: id)) is \(remote[id] ?? 0) bytes in the bucket, \(row.durableLength) were recorded: run `sync-server storage check`")
        }
        let orphans = remote.keys.sorted().filter { rows[$0] == nil }
        if index.shared {
            // Another instance may have uploaded it and not yet indexed its chunks.
            if !orphans.isEmpty {
                logger.info(
                    "\(orphans.count) pack object(s) no row names are left in place (other instances may be uploading them); storage rounds delete such objects once they are a day old")
            }
        } else {
            for id in orphans {
                try await store.delete(pack: id)
                report.orphansDeleted += 1
            }
        }
        if report != RemoteRecovery() {
            logger.info(
                "object storage checked",
                metadata: [
                    "retired_packs_removed": "\(report.retiredRemoved)", "packs_uploaded": "\(report.uploaded)",
                    "orphan_packs_deleted": "\(report.orphansDeleted)", "chunks_dropped": "\(report.dropped.count)",
                ])
        }
        return report
    }

    /// Deletes the pack objects in the bucket that no row names and that were written more
    /// than `grace` seconds before `now`: what crashed uploads and compactions left. A pack is
    /// put, then indexed within the same request, so an object that old is no upload in
    /// flight (on any instance); one whose time the listing does not give is kept. Listed
    /// before the rows are read: a pack indexed in between is seen with its row. How many.
    func sweepLeftoverObjects(now: Date, grace: Int64) async throws -> Int {
        guard let store = blobs as? S3BlobStore else { return 0 }
        let objects = try await store.remoteObjects()
        let rows = try await index.packRows()
        let cutoff = now.addingTimeInterval(-TimeInterval(grace))
        var deleted = 0
        for (id, object) in objects.sorted(by: { $0.key < $1.key }) where rows[id] == nil {
            guard let written = object.lastModified, written < cutoff else { continue }
            try await store.delete(pack: id)
            logger.info("deleted pack object \(store.name(of: id)) that no row names (written \(written), left by a crashed upload or compaction)")
            deleted += 1
        }
        return deleted
    }
}
