import Foundation
import Testing

@testable import SyncDaemon

/// The journal on a real SQLite file.
struct JournalTests {
    static func store() throws -> (IndexStore, String) {
        let dir = NSTemporaryDirectory() + "syncd-journal-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return (try IndexStore(path: dir + "/index.sqlite"), dir)
    }

    @Test func onePendingOpPerPath() throws {
        let (index, dir) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try index.enqueue(folder: "f", paths: ["a", "b", "a"])
        try index.enqueue(folder: "f", paths: ["a"])
        #expect(try index.pendingCount(folder: "f") == 2)
        #expect(try index.pendingCount(folder: "other") == 0)
    }

    @Test func requestWhileRunningMarksDirtyAndRunsAgain() throws {
        let (index, dir) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try index.enqueue(folder: "f", paths: ["a", "b"])
        let claimed = try index.claim(folder: "f", limit: 10)
        #expect(Set(claimed.map(\.path)) == ["a", "b"])
        #expect(try index.claim(folder: "f", limit: 10).isEmpty, "running ops are not claimed twice")
        let running = try index.enqueue(folder: "f", paths: ["a"])
        #expect(running == ["a"])
        let again = try index.finish(folder: "f", done: ["a", "b"], update: .empty)
        #expect(again == ["a"])
        #expect(try index.claim(folder: "f", limit: 10).map(\.path) == ["a"])
    }

    @Test func survivesReopenAndResumesRunningOps() throws {
        let (index, dir) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try index.enqueue(folder: "f", paths: ["a", "b", "c"])
        _ = try index.claim(folder: "f", limit: 2)
        let reopened = try IndexStore(path: dir + "/index.sqlite")
        #expect(try reopened.claim(folder: "f", limit: 10).count == 1)
        try reopened.resumeInterrupted()
        #expect(try reopened.claim(folder: "f", limit: 10).count == 3)
    }

    @Test func rescheduledOpsWaitForTheirTime() throws {
        let (index, dir) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try index.enqueue(folder: "f", paths: ["a"])
        _ = try index.claim(folder: "f", limit: 1)
        let later = Date().addingTimeInterval(60)
        try index.reschedule(folder: "f", paths: ["a"], error: "down", retryAt: later)
        #expect(try index.claim(folder: "f", limit: 1).isEmpty)
        #expect(try index.claim(folder: "f", limit: 1, now: later.addingTimeInterval(1)).map(\.attempts) == [1])
        let errors = try index.pathErrors(folder: "f")
        #expect(errors.map(\.message) == ["down"])
        #expect(errors.first?.retryAt != nil)
    }
}
