import Foundation
import Glibc
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// What a push batch's unfinished paths leave in the journal, on a real index: a failure
/// of the path is shown and dropped until the path changes; a failure of the moment (out
/// of file descriptors, an I/O error, the index busy) is shown and tried again, since no
/// change of the path would bring it back.
struct BatchRecordTests {
    @Test func aFailureOfTheMomentIsTriedAgainAndAFailureOfThePathIsDropped() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        let paths = ["denied", "emfile", "eio-read", "index"]
        try index.journal.enqueue(folder: "f", paths: paths)
        let ops = try index.journal.claim(folder: "f", limit: 10)
        var result = PushBatchResult()
        result.settle("denied", .failed(.io("open", "denied", EACCES)))
        result.settle("emfile", .failed(.io("open", "emfile", EMFILE)))
        result.settle(
            "eio-read",
            .failed(DaemonError(.io, "cannot read", path: "eio-read", underlying: ChunkingError(path: "eio-read", errno: EIO, operation: "read"))))
        result.settle("index", .failed(DaemonError(.index, "the index could not be read: busy", path: "index")))
        let before = Date()

        let record = try BatchRecord.writeUnfinished(result, ops: ops, folder: "f", index: index, backoff: Backoff())

        #expect(record.failed.map(\.path) == ["denied"])
        #expect(Set(record.nextRun) == ["emfile", "eio-read", "index"])
        #expect(try index.journal.pendingCount(folder: "f") == 3, "a failure of the moment left the journal")
        let shown = Dictionary(uniqueKeysWithValues: try index.errors.list(folder: "f").map { ($0.path, $0) })
        #expect(Set(shown.keys) == Set(paths), "every failure is shown")
        #expect(shown["denied"]?.retryAt == nil)
        for path in ["emfile", "eio-read", "index"] {
            let retryAt = try #require(shown[path]?.retryAt, "\(path) is shown without a retry")
            // The backoff's first delay: 0.25-0.5 s.
            #expect(retryAt > before.addingTimeInterval(0.2) && retryAt <= Date().addingTimeInterval(0.5))
        }
        // Due once the backoff has passed (the first one is at most half a second).
        let later = try index.journal.claim(folder: "f", limit: 10, now: Date().addingTimeInterval(61))
        #expect(Set(later.map(\.path)) == ["emfile", "eio-read", "index"])
        #expect(later.allSatisfy { $0.attempts == 1 })
    }

    /// A failure of the moment that does not pass (a disk that keeps answering EIO) is tried
    /// `passingPatience` times with a growing backoff, then shown and dropped as any other.
    @Test func aFailureOfTheMomentThatLastsIsDroppedAfterItsTries() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["bad-sector"])
        var result = PushBatchResult()
        result.settle("bad-sector", .failed(.io("read", "bad-sector", EIO)))
        var delays: [TimeInterval] = []
        var now = Date()
        for _ in 0..<BatchRecord.passingPatience {
            let ops = try index.journal.claim(folder: "f", limit: 10, now: now)
            #expect(ops.map(\.path) == ["bad-sector"])
            let before = Date()
            let record = try BatchRecord.writeUnfinished(result, ops: ops, folder: "f", index: index, backoff: Backoff())
            #expect(record.failed.isEmpty && record.nextRun == ["bad-sector"])
            let retryAt = try #require(try index.errors.list(folder: "f").first?.retryAt)
            delays.append(retryAt.timeIntervalSince(before))
            now = retryAt.addingTimeInterval(1)
        }
        #expect(delays.first! <= 0.5 && delays.last! >= 30, "the backoff did not grow: \(delays)")
        let ops = try index.journal.claim(folder: "f", limit: 10, now: now)
        let record = try BatchRecord.writeUnfinished(result, ops: ops, folder: "f", index: index, backoff: Backoff())
        #expect(record.failed.map(\.path) == ["bad-sector"])
        #expect(try index.journal.pendingCount(folder: "f") == 0)
        #expect(try index.errors.list(folder: "f").first?.retryAt == nil)
    }

    /// A corrupt index row is not a failure of the moment; a path changed during its failed
    /// attempt (a permission fixed) runs once more instead of being dropped.
    @Test func aCorruptRowIsDroppedAndAPathChangedDuringItsFailureRunsAgain() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["corrupt", "fixed"])
        let ops = try index.journal.claim(folder: "f", limit: 10)
        try index.journal.enqueue(folder: "f", paths: ["fixed"])  // its chmod's event, during the attempt
        var result = PushBatchResult()
        let corrupt = DaemonError(.corruptIndex, "kind: a value no release writes")
        result.settle("corrupt", .failed(DaemonError(.index, "the index could not be read", path: "corrupt", underlying: corrupt)))
        result.settle("fixed", .failed(.io("open", "fixed", EACCES)))

        let record = try BatchRecord.writeUnfinished(result, ops: ops, folder: "f", index: index, backoff: Backoff())

        #expect(record.failed.map(\.path) == ["corrupt"])
        #expect(record.nextRun == ["fixed"])
        #expect(try index.journal.claim(folder: "f", limit: 10).map(\.path) == ["fixed"])
    }
}
