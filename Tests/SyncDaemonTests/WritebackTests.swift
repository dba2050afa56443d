import Foundation
import Testing
import TestSupport

@testable import SyncDaemon

/// The writeback hint of a big download: every 32 MiB written, the range since the last
/// hint is handed to the disk, so that the fsync at the end finds most of the file written.
@Suite("Writeback while a download is assembled")
struct WritebackTests {
    final class Ranges {
        var seen: [(fd: Int32, offset: Int64, length: Int64)] = []
    }

    @Test func eachRangeIsHandedOverOnceAtLeastAStepLongAndInOrder() {
        let ranges = Ranges()
        var writeback = Writeback(fd: 7) { ranges.seen.append(($0, $1, $2)) }
        let mib = 1 << 20
        for count in [10 * mib, 30 * mib, 1 * mib, 40 * mib, 5 * mib, 4 * mib] { writeback.wrote(count) }
        // 40 MiB written when the second write ends; 41 more by the fourth; 9 since: no hint yet.
        #expect(ranges.seen.map(\.fd) == [7, 7])
        #expect(ranges.seen.map(\.offset) == [0, 40 << 20])
        #expect(ranges.seen.map(\.length) == [40 << 20, 41 << 20])
    }

    @Test func aFileSmallerThanAStepGetsNoHint() {
        let ranges = Ranges()
        var writeback = Writeback(fd: 3) { ranges.seen.append(($0, $1, $2)) }
        for _ in 0..<31 { writeback.wrote(1 << 20) }
        #expect(ranges.seen.isEmpty)
        writeback.wrote(1 << 20)
        #expect(ranges.seen.map(\.length) == [32 << 20])
    }

    /// On a real file the hint is harmless: the bytes are the file's, whatever the disk did.
    @Test func theRealHintLeavesTheBytesAsWritten() throws {
        let tmp = try TemporaryDirectory("writeback")
        defer { tmp.remove() }
        let path = tmp.path + "/staged"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let bytes = pseudoRandomBytes(count: 40 << 20, seed: 41)
        var writeback = Writeback(fd: fd)
        for start in stride(from: 0, to: bytes.count, by: 8 << 20) {
            let part = bytes[start..<min(start + (8 << 20), bytes.count)]
            let n = part.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            try #require(n == part.count)
            writeback.wrote(n)
        }
        #expect(fsync(fd) == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }
}
