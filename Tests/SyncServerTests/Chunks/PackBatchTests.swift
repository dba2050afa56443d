import Foundation
import NIOCore
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// A pack batch takes records as they lie in an upload's body (the wire's chunk batch format
/// is the pack's): what it writes must be exactly the records, encoded as the pack expects.
@Suite("Pack batches")
struct PackBatchTests {
    static let chunks = (0..<5).map { pseudoRandomBytes(count: 700 + 300 * $0, seed: UInt64(2 * $0 + 1)) }

    /// The bytes `batch` writes (its first `limit`), read back from a real file.
    func written(_ batch: PackBatch, limit: Int? = nil) throws -> [UInt8] {
        let tmp = try TemporaryDirectory("pack-batch")
        defer { tmp.remove() }
        let path = tmp.path + "/batch"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        try batch.write(fd: fd, at: 0, path: path, limit: limit)
        return try POSIX.readWhole(path: path)
    }

    /// A batch body whose readable bytes start later in its storage (as a body read off a
    /// connection may), and its parsed records.
    static func body(of chunks: [[UInt8]]) throws -> (ByteBuffer, [(hash: String, range: Range<Int>)]) {
        var body = ByteBuffer(bytes: [7, 7, 7] + ChunkBatch.encode(chunks.map { (Make.hash($0), $0) }))
        body.moveReaderIndex(forwardBy: 3)
        return (body, try body.withUnsafeReadableBytes { try ChunkBatch.records(in: $0) })
    }

    @Test func runsOfABodyAreWrittenAsTheyArrivedAndTheRestCopiedIn() throws {
        let all = Self.chunks
        let (body, records) = try Self.body(of: all)
        var batch = PackBatch()
        // Records 0-1 and 3 as they lie in the body (2 left out: known), 4 copied in.
        batch.add(run: Array(records[0...1]), of: body)
        batch.add(run: [records[3]], of: body)
        all[4].withUnsafeBytes { batch.add(hash: Make.hash(all[4]), bytes: $0) }
        let expected = ChunkBatch.encode([0, 1, 3, 4].map { (Make.hash(all[$0]), all[$0]) })
        #expect(try written(batch) == expected)
        #expect(batch.byteCount == expected.count)
        #expect(batch.parts.count == 3)
        var offset = 0
        for (record, n) in zip(batch.records, [0, 1, 3, 4]) {
            offset += PackRecord.headerSize
            #expect(record.hash == Make.hash(all[n]))
            #expect(record.offset == Int64(offset) && record.length == Int64(all[n].count))
            #expect(record.checksum == ChunkChecksum.of(all[n]))
            offset += all[n].count
        }
    }

    @Test func aLoneChunkGetsItsHeaderAndKeepsItsBytesWhereTheyAre() throws {
        let chunk = Self.chunks[2]
        var body = ByteBuffer(bytes: [9, 9, 9] + chunk)
        body.moveReaderIndex(forwardBy: 3)  // a body whose readable bytes start later in its storage
        var batch = PackBatch()
        batch.add(hash: Make.hash(chunk), chunkAt: 0..<chunk.count, of: body)
        #expect(try written(batch) == ChunkBatch.encode([(Make.hash(chunk), chunk)]))
        #expect(batch.records.map(\.offset) == [Int64(PackRecord.headerSize)])
        #expect(batch.records.map(\.checksum) == [ChunkChecksum.of(chunk)])
    }

    /// The limit falls in the second of three parts.
    @Test func aTornWriteStopsAtItsLimit() throws {
        let all = Self.chunks
        let (body, records) = try Self.body(of: all)
        var batch = PackBatch()
        batch.add(run: Array(records[0...1]), of: body)
        batch.add(run: Array(records[2...3]), of: body)
        all[4].withUnsafeBytes { batch.add(hash: Make.hash(all[4]), bytes: $0) }
        let whole = ChunkBatch.encode(all.map { (Make.hash($0), $0) })
        let limit = batch.parts[0].readableBytes + 1000
        #expect(try written(batch, limit: limit) == Array(whole.prefix(limit)))
        #expect(try written(batch) == whole)
    }
}
