import Foundation
import NIOCore
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A unit's chunks read straight into the request body: what the server decodes is what
/// the files and kept bytes hold, and an unreadable or changed chunk's owner is torn.
struct UploadBodyTests {
    static func pending(_ owner: String, _ bytes: [UInt8], offset: Int, length: Int, source: ChunkSource) -> ChunkSender.Pending {
        let chunk = Array(bytes[offset..<(offset + length)])
        return ChunkSender.Pending(
            hash: Hashing.sha256Hex(chunk), owner: owner, length: length, source: source, offset: Int64(offset))
    }

    @Test func aBatchHoldsEveryReadableChunkAsARecord() throws {
        let tmp = try TemporaryDirectory("upload-body")
        defer { tmp.remove() }
        let root = FolderRoot(tmp.path)
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(big).write(to: URL(fileURLWithPath: tmp.path + "/big.bin"))
        let small = Array("kept since hashing".utf8)
        let unit = [
            Self.pending("big.bin", big, offset: 0, length: 100_000, source: .file(path: "big.bin", in: root, [])),
            Self.pending("big.bin", big, offset: 100_000, length: 200_000, source: .file(path: "big.bin", in: root, [])),
            Self.pending("s.txt", small, offset: 0, length: small.count, source: .memory(small, [])),
            Self.pending("gone.bin", big, offset: 0, length: 10, source: .file(path: "gone.bin", in: root, [])),
        ]
        let body = UploadBody(unit, single: false, verifying: false)
        #expect(body.isBatch)
        #expect(body.torn == ["gone.bin"])
        #expect(body.chunks == 3 && body.chunkBytes == 300_000 + small.count)
        let records = try ChunkBatch.decode(Array(body.buffer.readableBytesView))
        #expect(records.map(\.hash) == unit.prefix(3).map(\.hash))
        #expect(records.map { Array($0.bytes) } == [Array(big[0..<100_000]), Array(big[100_000...]), small])
    }

    @Test func aLoneChunkIsItsBytesAndAChangedOneIsTornWhenVerified() throws {
        let tmp = try TemporaryDirectory("upload-body")
        defer { tmp.remove() }
        let root = FolderRoot(tmp.path)
        let bytes = [UInt8](repeating: 7, count: 5_000)
        try Data(bytes).write(to: URL(fileURLWithPath: tmp.path + "/f"))
        let unit = [Self.pending("f", bytes, offset: 0, length: 5_000, source: .file(path: "f", in: root, []))]
        let body = UploadBody(unit, single: true, verifying: true)
        #expect(!body.isBatch && body.torn.isEmpty)
        #expect(Array(body.buffer.readableBytesView) == bytes)
        // The file changed after it was hashed: sent as read, checked only when verifying.
        try Data([UInt8](repeating: 8, count: 5_000)).write(to: URL(fileURLWithPath: tmp.path + "/f"))
        #expect(UploadBody(unit, single: true, verifying: false).chunks == 1)
        let verified = UploadBody(unit, single: true, verifying: true)
        #expect(verified.torn == ["f"] && verified.chunks == 0 && verified.buffer.readableBytes == 0)
    }
}
