import Foundation
import Testing
import TestSupport

@testable import SyncCore

struct ChunkingTests {
    @Test func emptyFileHasNoChunks() {
        let c = FileChunker().chunk(bytes: [])
        #expect(c.chunks.isEmpty)
        #expect(c.size == 0)
        #expect(c.contentHash == Hashing.contentHash(chunks: []))
        #expect(c.contentHash == Hashing.sha256Hex([UInt8]()))
    }

    @Test func smallFileIsOneChunk() {
        let data = pseudoRandomBytes(count: 100_000, seed: 1)
        let c = FileChunker().chunk(bytes: data)
        #expect(c.chunks.count == 1)
        #expect(c.chunks[0].hash == Hashing.sha256Hex(data))
        #expect(c.contentHash == Hashing.contentHash(chunks: [c.chunks[0].hash]))
    }

    @Test func chunksRespectBoundsAndCoverTheFile() {
        let cdc = FastCDC(minSize: 2048, avgSize: 8192, maxSize: 32768)
        let data = pseudoRandomBytes(count: 1_000_000, seed: 2)
        let c = FileChunker(cdc: cdc).chunk(bytes: data)
        #expect(c.chunks.reduce(0) { $0 + $1.length } == data.count)
        for (i, ref) in c.chunks.enumerated() {
            #expect(ref.length <= 32768)
            if i < c.chunks.count - 1 { #expect(ref.length >= 2048) }
        }
        let mean = data.count / c.chunks.count
        #expect(mean > 4096 && mean < 16384, "mean chunk \(mean)")
    }

    @Test func anEditInTheMiddleChangesOnlyNearbyChunks() {
        let cdc = FastCDC(minSize: 2048, avgSize: 8192, maxSize: 32768)
        var data = pseudoRandomBytes(count: 2_000_000, seed: 3)
        let before = Set(FileChunker(cdc: cdc).chunk(bytes: data).chunks.map(\.hash))
        data.insert(contentsOf: [1, 2, 3, 4, 5], at: 1_000_000)
        let after = FileChunker(cdc: cdc).chunk(bytes: data).chunks.map(\.hash)
        let changed = after.filter { !before.contains($0) }.count
        #expect(changed >= 1 && changed <= 3, "changed \(changed) of \(after.count)")
    }

    @Test func streamingAndInMemoryAgree() throws {
        let data = pseudoRandomBytes(count: 9_000_000, seed: 4)
        try Self.withFile(data) { fd, path in
            let streamed = try FileChunker().chunk(fd: fd, path: path)
            #expect(streamed == FileChunker().chunk(bytes: data))
            #expect(streamed.chunks.count >= 2)
        }
    }

    /// `data` in a temporary file, open for reading and writing at offset 0.
    static func withFile(_ data: [UInt8], _ body: (Int32, String) throws -> Void) throws {
        let tmp = try TemporaryDirectory("chunk")
        defer { tmp.remove() }
        let path = tmp.path + "/file"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        lseek(fd, 0, SEEK_SET)
        try body(fd, path)
    }

    /// Read in windows (one cut while the last is hashed), a file gives the same chunks as
    /// in memory, whatever the window size, wherever the file ends against a window.
    @Test(arguments: [0, 1, 4_095, 65_536, 65_537, 300_001, 1_048_576])
    func streamingInWindowsAgreesWithInMemory(size: Int) throws {
        let cdc = FastCDC(minSize: 1 << 10, avgSize: 4 << 10, maxSize: 16 << 10)
        let data = pseudoRandomBytes(count: size, seed: UInt64(size) + 7)
        let expected = FileChunker(cdc: cdc).chunk(bytes: data)
        try Self.withFile(data) { fd, path in
            for window in [32 << 10, 33 << 10, 64 << 10, 1 << 20] {
                lseek(fd, 0, SEEK_SET)
                let streamed = try FileChunker(cdc: cdc, windowSize: window).chunk(fd: fd, path: path)
                #expect(streamed == expected, "window \(window), size \(size)")
            }
        }
    }

    @Test func aReadThatFailsIsAnError() throws {
        let tmp = try TemporaryDirectory("chunk-fail")
        defer { tmp.remove() }
        // A directory opened for reading: read(2) fails with EISDIR.
        let fd = open(tmp.path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        #expect(throws: ChunkingError.self) { try FileChunker().chunk(fd: fd, path: tmp.path) }
    }

    @Test func batchRoundTripsAndRejectsTruncation() throws {
        let a = pseudoRandomBytes(count: 10, seed: 5), b = pseudoRandomBytes(count: 0, seed: 6)
        let body = ChunkBatch.encode([(Hashing.sha256Hex(a), a), (Hashing.sha256Hex(b), b)])
        let records = try ChunkBatch.decode(body)
        #expect(records.count == 2)
        #expect(records[0].hash == Hashing.sha256Hex(a))
        #expect(Array(records[0].bytes) == a)
        #expect(records[1].bytes.isEmpty)
        #expect(throws: ChunkBatch.DecodeError.self) { try ChunkBatch.decode(Array(body.dropLast(3))) }
    }

    /// A record's length comes from the sender: one past the end, or near 2^64, is refused
    /// without reading or slicing past the body (a receiver reads records in place).
    @Test func batchLengthsPastTheBodyAreRefused() throws {
        let bytes = pseudoRandomBytes(count: 100, seed: 7)
        for claimed in [UInt64(101), UInt64(Int.max), UInt64.max, UInt64.max - 39] {
            var body = [UInt8](repeating: 0xab, count: 32)
            withUnsafeBytes(of: claimed.bigEndian) { body.append(contentsOf: $0) }
            body += bytes
            #expect(throws: ChunkBatch.DecodeError.self) {
                try body.withUnsafeBytes { raw in Result { () throws(ChunkBatch.DecodeError) in try ChunkBatch.records(in: raw) } }.get()
            }
        }
        var exact = [UInt8](repeating: 0xab, count: 32)
        withUnsafeBytes(of: UInt64(100).bigEndian) { exact.append(contentsOf: $0) }
        exact += bytes
        let records = try exact.withUnsafeBytes { raw in Result { () throws(ChunkBatch.DecodeError) in try ChunkBatch.records(in: raw) } }.get()
        #expect(records.map(\.range) == [40..<140])
        #expect(records.map(\.hash) == [String(repeating: "ab", count: 32)])
    }

    /// Known answers (FIPS 180-2), and hex of every byte value: lowercase, two digits each.
    @Test func hashesAreWrittenAsLowercaseHex() {
        #expect(Hashing.sha256Hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hashing.sha256Hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let every = [UInt8](0...255)
        let expected = every.map { String(format: "%02x", $0) }.joined()
        #expect(every.withUnsafeBytes { Hashing.hex($0) } == expected)
        #expect(Hashing.hex(every) == expected)
    }
}
