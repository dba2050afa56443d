import Foundation
import Testing
import TestSupport

@testable import SyncDaemon

/// The local trash keeps remote deletes for the retention period (real files in a temp dir).
struct TrashTests {
    @Test func stampsRoundTrip() throws {
        let date = Date(timeIntervalSince1970: 1_790_000_000.25)
        let back = try #require(Trash.date(ofStamp: Trash.stamp(date)))
        #expect(abs(back.timeIntervalSince(date)) < 0.001)
        #expect(Trash.date(ofStamp: "20261121-101500") != nil, "stamps without milliseconds still parse")
        #expect(Trash.date(ofStamp: "notes") == nil)
    }

    @Test func onlyBatchesOlderThanTheRetentionGo() throws {
        let tmp = try TemporaryDirectory("trash")
        defer { tmp.remove() }
        let root = tmp.path
        let now = Date()
        let old = Trash.stamp(now.addingTimeInterval(-31 * 86_400))
        let recent = Trash.stamp(now.addingTimeInterval(-29 * 86_400))
        for dir in [old, recent, "not-a-stamp"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(dir)/a/b", withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: "\(root)/\(dir)/a/b/file.txt", contents: Data("x".utf8)))
        }
        let trash = Trash(root: root)
        #expect(try trash.expire(retention: .seconds(30 * 86_400), now: now) == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted() == [recent, "not-a-stamp"].sorted())
        #expect(try Trash(root: root + "/missing").expire(retention: .seconds(1)) == 0)
    }
}
