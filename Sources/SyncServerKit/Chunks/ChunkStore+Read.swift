import Foundation
import NIOCore
import SyncCore

/// Reads: ranged reads of packs through the blob store, every chunk checked before any of it
/// is served (against its checksum, else its hash: `verdict`); a chunk whose pack is gone
/// is looked up once more (compaction moves chunks, then deletes their old pack).
extension ChunkStore {
    enum Verdict: Equatable {
        case intact
        /// The bytes are the chunk's, but the index row's checksum is not theirs.
        case intactButChecksumWrong
        /// The bytes are not the chunk's: what they hash to.
        case damaged(actual: String)
    }

    /// Whether `bytes`, read from `location`, are the chunk `hash`. The checksum kept in its
    /// index row decides when it matches (decision 0028: the SHA-256 was checked when the
    /// chunk came in); otherwise, and always when `thorough` (`storage check`), the SHA-256
    /// does. A wrong checksum over intact bytes costs only the slower check.
    static func verdict(_ bytes: [UInt8], hash: String, at location: ChunkLocation, thorough: Bool = false) -> Verdict {
        if !thorough, let checksum = location.checksum, ChunkChecksum.of(bytes) == checksum { return .intact }
        let actual = Hashing.sha256Hex(bytes)
        guard actual == hash else { return .damaged(actual: actual) }
        return thorough || location.checksum == nil ? .intact : .intactButChecksumWrong
    }

    func warnChecksumWrong(_ hash: String, at location: ChunkLocation) {
        logger.warning(
            "chunk \(hash): the checksum in its index row does not match its bytes in \(blobs.name(of: location.pack)) at offset \(location.offset), which match its hash: served, checked by SHA-256 each time until compaction copies it (which sets the checksum right)")
    }

    /// The chunk's bytes (or the requested part of them); nil if not stored. The whole
    /// chunk is read and checked first: damaged bytes are never served.
    func read(hash: String, rangeHeader: String?) async throws -> ChunkRead? {
        guard let location = try await index.locations(of: [hash])[hash] else { return nil }
        let bytes = try await readChecked(hash: hash, at: location)
        let size = location.length
        let range: Range<Int64>
        switch ByteRange(header: rangeHeader, size: size) {
        case .unsatisfiable: return ChunkRead(bytes: ByteBuffer(), range: nil, total: size, satisfiable: false)
        case .whole: range = 0..<size
        case .part(let part): range = part
        }
        let buffer = ByteBuffer(bytes: bytes[Int(range.lowerBound)..<Int(range.upperBound)])
        return ChunkRead(bytes: buffer, range: range.count == size ? nil : range, total: size, satisfiable: true)
    }

    /// A chunk's bytes from its pack, checked (`verdict`). If the pack cannot be read,
    /// the chunk is looked up once more: compaction may have moved it (and deleted the pack)
    /// since `location` was read.
    func readChecked(hash: String, at location: ChunkLocation, thorough: Bool = false) async throws -> [UInt8] {
        var location = location
        let bytes: [UInt8]
        do {
            bytes = try await blobs.read(pack: location.pack, ranges: [location.offset..<location.recordEnd])[0]
        } catch let first as StoreIOError {
            guard let moved = try await index.locations(of: [hash])[hash], !moved.isSamePlace(as: location) else {
                throw APIError.chunkDamaged(hash, location: location, pack: blobs.name(of: location.pack), reason: "cannot be read: \(first)")
            }
            location = moved
            do {
                bytes = try await blobs.read(pack: location.pack, ranges: [location.offset..<location.recordEnd])[0]
            } catch let error as StoreIOError {
                throw APIError.chunkDamaged(hash, location: location, pack: blobs.name(of: location.pack), reason: "cannot be read: \(error)")
            }
        }
        let checked = location
        switch try await offload({ Self.verdict(bytes, hash: hash, at: checked, thorough: thorough) }) {
        case .intact: break
        case .intactButChecksumWrong: warnChecksumWrong(hash, at: location)
        case .damaged(let actual):
            throw APIError.chunkDamaged(hash, location: location, pack: blobs.name(of: location.pack), reason: "its bytes hash to \(actual)")
        }
        return bytes
    }
}

extension APIError {
    static let chunkDamagedCode = Code(rawValue: "chunk_damaged")

    /// 500 `chunk_damaged`: the index has the chunk but its stored bytes are unreadable or
    /// no longer match its hash (a server-side fault: the operator runs `storage check`).
    static func chunkDamaged(_ hash: String, location: ChunkLocation, pack: String, reason: String) -> APIError {
        APIError(
            chunkDamagedCode, status: .internalServerError,
            "chunk \(hash) is damaged on the server (\(pack) at offset "
                + "\(location.offset), \(location.length) bytes): \(reason); not served. "
                + "Run `sync-server storage check` on the server.")
    }
}

extension ChunkStore {
    /// The stored chunks among `hashes` as one chunk batch body, in request order without
    /// duplicates, absent ones left out, stopping before a record would take the body past
    /// `limit` (the first record is always sent). Each chunk is checked (`verdict`) as it
    /// is read: one that is damaged is left out (the client asks again, or reports it
    /// missing) and logged, never served.
    func batch(of hashes: [String], limit: Int) async throws -> ByteBuffer {
        let found = try await index.locations(of: hashes)
        var seen = Set<String>()
        var chosen: [(hash: String, location: ChunkLocation)] = []
        var size = 0
        for hash in hashes where seen.insert(hash).inserted {
            guard let location = found[hash] else { continue }
            let record = PackRecord.headerSize + Int(location.length)
            if size > 0 && size + record > limit { break }
            chosen.append((hash, location))
            size += record
        }
        let bytes = try await readRecords(chosen, retry: true)
        let records = chosen.compactMap { item in bytes[item.hash].map { (hash: item.hash, location: $0.location, bytes: $0.bytes) } }
        let (body, damaged, checksumWrong) = try await offload { Self.encodeChecked(records) }
        for hash in damaged {
            logger.error("chunk \(hash) left out of a fetch: its stored bytes no longer match its hash (run `sync-server storage check`)")
        }
        for (hash, location) in checksumWrong { warnChecksumWrong(hash, at: location) }
        return body
    }

    /// The bytes of each chunk, read pack by pack. The chunks of a pack that cannot be read
    /// are looked up again and read once more from where they are now (compaction may have
    /// moved them); any still unreadable are left out (logged).
    func readRecords(
        _ chosen: [(hash: String, location: ChunkLocation)], retry: Bool
    ) async throws -> [String: (location: ChunkLocation, bytes: [UInt8])] {
        var bytes: [String: (location: ChunkLocation, bytes: [UInt8])] = [:]
        var unreadable: [String] = []
        for (pack, items) in Dictionary(grouping: chosen, by: { $0.location.pack }) {
            do {
                let parts = try await blobs.read(pack: pack, ranges: items.map { $0.location.offset..<$0.location.recordEnd })
                for (item, part) in zip(items, parts) { bytes[item.hash] = (item.location, part) }
            } catch let error as StoreIOError {
                if retry {
                    unreadable += items.map(\.hash)
                } else {
                    logger.error("chunks of \(blobs.name(of: pack)) left out of a fetch: \(error)")
                }
            }
        }
        guard !unreadable.isEmpty else { return bytes }
        let now = try await index.locations(of: unreadable)
        let again = chosen.compactMap { item in now[item.hash].map { (hash: item.hash, location: $0) } }
        return bytes.merging(try await readRecords(again, retry: false)) { first, _ in first }
    }

    private static func encodeChecked(
        _ records: [(hash: String, location: ChunkLocation, bytes: [UInt8])]
    ) -> (ByteBuffer, damaged: [String], checksumWrong: [(String, ChunkLocation)]) {
        var out = ByteBufferAllocator().buffer(capacity: records.reduce(0) { $0 + PackRecord.headerSize + $1.bytes.count })
        var damaged: [String] = []
        var checksumWrong: [(String, ChunkLocation)] = []
        for record in records {
            switch verdict(record.bytes, hash: record.hash, at: record.location) {
            case .intact: break
            case .intactButChecksumWrong: checksumWrong.append((record.hash, record.location))
            case .damaged:
                damaged.append(record.hash)
                continue
            }
            PackRecord.writeHeader(hash: record.hash, length: record.bytes.count, to: &out)
            out.writeBytes(record.bytes)
        }
        return (out, damaged, checksumWrong)
    }
}

struct ChunkRead: Sendable {
    var bytes: ByteBuffer
    /// The byte range served, nil for the whole chunk.
    var range: Range<Int64>?
    var total: Int64
    var satisfiable: Bool
}
