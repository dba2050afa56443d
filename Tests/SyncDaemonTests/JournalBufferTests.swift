import Foundation
import Testing
import TestSupport

@testable import SyncDaemon

/// Local changes grouped on their way to the journal: several requests, one transaction,
/// in order; the buffer counts what is not written yet as pending.
struct JournalBufferTests {
    @Test func requestsWrittenTogetherKeepTheirOrderMovesAndDelays() throws {
        let tmp = try TemporaryDirectory("journal-group")
        defer { tmp.remove() }
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        let now = Date()
        try index.journal.enqueue(
            folder: "f",
            requests: [
                JournalRequest(paths: ["new/a", "old/a"], moves: ["new/a": "old/a"]),
                JournalRequest(paths: ["later"], delay: 60),
                JournalRequest(paths: []),
                JournalRequest(paths: ["b", "new/a"]),
            ], now: now)
        #expect(try index.journal.pendingCount(folder: "f") == 4)
        let ready = try index.journal.claim(folder: "f", limit: 10, now: now)
        // In the order given (a move's destination before its source), the delayed one not yet.
        #expect(ready.map(\.path) == ["new/a", "old/a", "b"])
        #expect(ready.first?.moveFrom == "old/a", "a later request for the path keeps its move")
        #expect(try index.journal.claim(folder: "f", limit: 10, now: now.addingTimeInterval(61)).map(\.path) == ["later"])
    }

    @Test func aRequestForARunningPathMarksItDirty() throws {
        let tmp = try TemporaryDirectory("journal-group-dirty")
        defer { tmp.remove() }
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        try index.journal.enqueue(folder: "f", paths: ["a"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        let running = try index.journal.enqueue(folder: "f", requests: [JournalRequest(paths: ["b"]), JournalRequest(paths: ["a"])])
        #expect(running == ["a"])
        #expect(try index.journal.finish(folder: "f", done: ["a"], update: .empty) == ["a"])
    }

    @Test func theBufferCountsWhatIsNotWrittenYet() {
        var buffer = JournalBuffer()
        buffer.append(JournalRequest(paths: ["a", "b"]))
        buffer.append(JournalRequest(paths: []))
        #expect(buffer.paths == 2)
        let first = buffer.take()
        #expect(first.count == 1 && buffer.isEmpty)
        buffer.append(JournalRequest(paths: ["c"]))
        #expect(buffer.paths == 3, "being written still counts as pending")
        buffer.written()
        #expect(buffer.paths == 1)
        #expect(buffer.take().map(\.paths) == [["c"]])
        buffer.written()
        #expect(buffer.paths == 0 && buffer.isEmpty)
    }
}
