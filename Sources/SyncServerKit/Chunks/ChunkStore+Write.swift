import Foundation
import NIOCore
import SyncCore

extension ChunkStore {
    /// Stores one verified chunk (the whole of `bytes`); false if it was already there.
    func store(hash: String, bytes: ByteBuffer) async throws -> Bool {
        guard try await index.locationsRenewing([hash])[hash] == nil else { return false }
        var batch = PackBatch()
        batch.add(hash: hash, chunkAt: 0..<bytes.readableBytes, of: bytes)
        return try await append(batch) == [true]
    }

    /// Stores verified chunks of a chunk batch `body` (each record's bytes at `range`, its
    /// header right before them): the ones the index lacks are appended to the current pack as
    /// they lie in the body (runs of back-to-back records, not copied), in one go and one
    /// `fdatasync`, then indexed in one transaction. Returns how many were new, and their bytes.
    func storeNew(records: [(hash: String, range: Range<Int>)], in body: ByteBuffer) async throws -> (chunks: Int, bytes: Int64) {
        let known = try await index.locationsRenewing(records.map(\.hash))
        var queued = Set<String>()
        var batch = PackBatch()
        var run: [(hash: String, range: Range<Int>)] = []
        for record in records {
            guard known[record.hash] == nil && queued.insert(record.hash).inserted else {
                batch.add(run: run, of: body)
                run = []
                continue
            }
            if let last = run.last, last.range.upperBound + PackRecord.headerSize != record.range.lowerBound {
                batch.add(run: run, of: body)
                run = []
            }
            run.append(record)
        }
        batch.add(run: run, of: body)
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
