import Foundation
import NIOCore
import SyncCore

extension ChunkStore {
    /// Stores one verified chunk; false if it was already there.
    func store(hash: String, bytes: ByteBuffer) async throws -> Bool {
        try await storeNew(records: [(hash, 0..<bytes.readableBytes)], in: bytes).chunks == 1
    }

    /// Stores verified chunks that lie in `body` (ranges of its readable bytes), copied from
    /// there into the pack batch only: the ones the index lacks are appended to the current
    /// pack in one write and one `fdatasync`, then indexed in one transaction. Returns how
    /// many were new, and their bytes.
    func storeNew(records: [(hash: String, range: Range<Int>)], in body: ByteBuffer) async throws -> (chunks: Int, bytes: Int64) {
        let known = try await index.locationsRenewing(records.map(\.hash))
        var queued = Set<String>()
        let batch = body.withUnsafeReadableBytes { bytes in
            var batch = PackBatch()
            for record in records where known[record.hash] == nil && queued.insert(record.hash).inserted {
                batch.add(hash: record.hash, bytes: UnsafeRawBufferPointer(rebasing: bytes[record.range]))
            }
            return batch
        }
        guard !batch.isEmpty else { return (0, 0) }
        var new = (chunks: 0, bytes: Int64(0))
        for (isNew, record) in zip(try await append(batch), batch.records) where isNew {
            new.chunks += 1
            new.bytes += record.length
        }
        return new
    }

    /// Appends (durably) and indexes `batch`; per record, whether its index row is new.
    /// With packs in object storage the batch's pack is uploaded before it is indexed.
    func append(_ batch: PackBatch) async throws -> [Bool] {
        let appended = try await appendDurably(batch)
        let located = zip(batch.records, appended.locations).map { (hash: $0.hash, location: $1) }
        do {
            return try await index.insert(
                located, pack: appended.locations[0].pack, durableLength: appended.durableLength, sealed: writer.sealsEveryAppend)
        } catch let retired as PackRetired {
            throw retired.apiError
        }
    }

    /// Appends `batch` (one write, one `fdatasync`) and hands the packs sealed on the way to
    /// the blob store. Uploads and compaction both write through here.
    func appendDurably(_ batch: PackBatch, crashPoint: ServerCrashPoint? = nil) async throws -> PackWriter.Appended {
        let writer = self.writer
        do {
            let appended = try await offload { try writer.append(batch, crashPoint: crashPoint) }
            try await seal(appended.sealed)
            return appended
        } catch let error as StoreIOError {
            throw error.apiError
        }
    }

    /// Hands packs the writer closed to the blob store and records them as sealed. With
    /// object storage each pack is its append's own and has no row yet: it is recorded
    /// sealed with its rows (`ChunkIndex.insert`, `move`), not here. A pack of an append
    /// whose upload failed is removed: nothing points into it, its client sends it again.
    func seal(_ packs: [PackID]) async throws {
        for pack in packs {
            do {
                try await blobs.put(pack: pack, file: packFiles.path(of: pack))
            } catch let error as StoreIOError where blobs.isRemote {
                let files = packFiles
                do {
                    try await offload { try files.deleteBlocking(pack: pack) }
                } catch {
                    logger.warning("pack \(files.path(of: pack)) was not uploaded and could not be removed: \(error)")
                }
                throw error
            }
        }
        if !writer.sealsEveryAppend { try await index.markSealed(packs) }
    }
}
