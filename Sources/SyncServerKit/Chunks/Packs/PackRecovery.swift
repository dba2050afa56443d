import Foundation
import Logging

/// The start-up check of the packs, before the server serves. A pack that was sealed and
/// still has the length recorded for it is trusted as is (`storage check` reads everything).
/// Every other pack — the one the last run was appending to, one whose length differs from
/// the durable length recorded, one the index does not know — is read record by record:
/// the first record that is cut short or does not match its hash and everything after it
/// is a torn tail, cut off; the index is made to agree with the records that verified (rows
/// pointing at torn bytes are dropped, so `chunks/missing` reports those chunks and clients
/// upload them again); then the pack is sealed. A record below the recorded durable length
/// that the index does not name is garbage and stays unindexed (decision 0012). A pack
/// compaction retired is deleted, never read. Uploads index a chunk only after its bytes
/// were fsynced, so a chunk a commit references is never in a torn tail unless the disk
/// lost data it had acknowledged.
///
/// With packs in object storage (`remote`) only the local files are looked at here: a
/// retired pack's local copy is deleted and its row kept, and rows of packs that are not
/// local are left alone; `ChunkStore.recoverRemote()` does the rest with the bucket's listing.
enum PackRecovery {
    struct Report: Sendable {
        var verified = 0
        /// Retired packs (compaction had moved their rows away) whose deletion was finished.
        var retiredRemoved = 0
        var truncatedBytes: Int64 = 0
        /// Hashes whose index rows were dropped.
        var dropped: [String] = []
    }

    static func run(files: FilesystemBlobStore, index: any ChunkIndexBackend, remote: Bool = false, logger: Logger) async throws -> Report {
        var report = Report()
        var rows = try await index.packRows()
        var sizes = try files.listBlocking()
        // Compaction moved every row away from these and was deleting them: finish that,
        // never read them again (their records are garbage or copies).
        for (id, row) in rows.sorted(by: { $0.key < $1.key }) where row.retired {
            if sizes[id] != nil { try files.deleteBlocking(pack: id) }
            if remote {
                rows[id] = nil
                sizes[id] = nil
                continue
            }
            _ = try await index.dropPack(id)
            rows[id] = nil
            sizes[id] = nil
            report.retiredRemoved += 1
        }
        for id in rows.keys.sorted() where sizes[id] == nil && !remote {
            let lost = try await index.dropPack(id)
            report.dropped += lost
            logger.error(
                "pack \(files.path(of: id)) is missing: the \(lost.count) chunk(s) indexed in it are forgotten (clients are told they are missing)")
        }
        for (id, size) in sizes.sorted(by: { $0.key < $1.key }) {
            if let row = rows[id], row.sealed, row.durableLength == size { continue }
            if let row = rows[id], row.sealed {
                logger.error("pack \(files.path(of: id)) is \(size) bytes, \(row.durableLength) were recorded: verifying it")
            }
            try await verify(
                pack: id, path: files.path(of: id), trustedEnd: rows[id]?.durableLength ?? 0, index: index, logger: logger,
                report: &report)
        }
        return report
    }

    private static func verify(
        pack: PackID, path: String, trustedEnd: Int64, index: any ChunkIndexBackend, logger: Logger, report: inout Report
    ) async throws {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw StoreIOError(operation: "open pack", path: path, code: errno) }
        defer { close(fd) }
        let scan = try PackScan.scan(fd: fd, pack: pack, path: path, trustedEnd: trustedEnd)
        if scan.damaged > 0 {
            logger.error(
                "pack \(path): \(scan.damaged) chunk(s) in its durable part do not match their hash (kept in place, forgotten: clients upload them again; run `sync-server storage check`)")
        }
        if scan.validEnd < scan.fileSize {
            guard ftruncate(fd, off_t(scan.validEnd)) == 0 else {
                throw StoreIOError(operation: "truncate torn tail of", path: path, code: errno)
            }
            logger.warning(
                "pack \(path): torn tail of \(scan.fileSize - scan.validEnd) bytes after offset \(scan.validEnd) cut off")
        }
        // What was written by a process that died may still be only in the page cache.
        try POSIX.dataSync(fd: fd, path: path)
        let dropped = try await index.reconcile(pack: pack, verified: scan.records, validEnd: scan.validEnd, trustedEnd: trustedEnd)
        if !dropped.isEmpty {
            logger.warning(
                "pack \(path): \(dropped.count) indexed chunk(s) were not intact and are forgotten: \(dropped.prefix(5).joined(separator: ", "))")
        }
        report.verified += 1
        report.truncatedBytes += scan.fileSize - scan.validEnd
        report.dropped += dropped
    }
}
