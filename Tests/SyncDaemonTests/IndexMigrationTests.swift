import Foundation
import GRDB
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// The daemon's index, created by an earlier release, upgrades in place and keeps its data.
struct IndexMigrationTests {
    @Test func anIndexFromBeforeModesWereKeptUpgrades() throws {
        let tmp = try TemporaryDirectory("index-upgrade")
        defer { tmp.remove() }
        let dir = tmp.path
        let path = dir + "/index.sqlite"
        do {
            // Exactly the schema the release before v5 shipped.
            let queue = try DatabaseQueue(path: path)
            try IndexStore.migrator.migrate(queue, upTo: "v4-local-chunks")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO base (folder_id, path, kind, rev, content_hash, deleted) VALUES ('docs', 'a.txt', 'file', 7, 'h', 0)
                    """)
            }
        }
        let index = try IndexStore(path: path)
        let base = try #require(try index.baseRecord(folder: "docs", path: "a.txt"))
        #expect(base.rev == 7 && base.contentHash == "h" && base.mode == nil)
        // A mode recorded now is read back.
        var update = IndexUpdate()
        update.bases.append(BaseRecord(path: "b", kind: .file, rev: 8, contentHash: "h2", deleted: false, mode: 0o755))
        try index.record(folder: "docs", update)
        #expect(try index.baseRecord(folder: "docs", path: "b")?.mode == 0o755)
    }

    /// A row with a kind no release writes is a corrupt index, said as such: it was read
    /// as a file (a directory or symlink then planned as a file's content).
    @Test func anUnknownKindInTheIndexIsAnErrorNotAFile() throws {
        let tmp = try TemporaryDirectory("index-corrupt")
        defer { tmp.remove() }
        let dir = tmp.path
        let index = try IndexStore(path: dir + "/index.sqlite")
        try index.pool.write { db in
            try db.execute(sql: """
                INSERT INTO base (folder_id, path, kind, rev, content_hash, deleted) VALUES ('docs', 'odd', 'fifo', 3, 'h', 0)
                """)
        }
        #expect(throws: IndexCorruption.self) { _ = try index.baseRecord(folder: "docs", path: "odd") }
        #expect(throws: IndexCorruption.self) { _ = try index.records(folder: "docs", paths: ["odd"]) }
        do {
            _ = try index.liveBase(folder: "docs", under: "odd")
            Issue.record("read a corrupt row")
        } catch let error as IndexCorruption {
            #expect(error.description.contains("base") && error.description.contains("fifo"))
        }
    }

    /// The commit outbox keeps a commit until the update that records it says so.
    @Test func anOutboxCommitLeavesWithTheUpdateThatRecordsIt() throws {
        let tmp = try TemporaryDirectory("index-outbox")
        defer { tmp.remove() }
        let dir = tmp.path
        let index = try IndexStore(path: dir + "/index.sqlite")
        let change = CommitChange(
            path: "a", baseRev: 0, kind: .file, size: 1, mtimeNs: 1, mode: 0o644, chunks: ["c"], contentHash: "h", deleted: false)
        try index.putOutbox(folder: "docs", OutboxCommit(id: "one", changes: [change]))
        try index.putOutbox(folder: "docs", OutboxCommit(id: "two", changes: [change]))
        #expect(try index.outbox(folder: "docs").map(\.id) == ["one", "two"])
        #expect(try index.outbox(folder: "docs").first?.changes == [change])
        // Reopened (a restart): still there.
        let reopened = try IndexStore(path: dir + "/index.sqlite")
        var update = IndexUpdate()
        update.bases.append(BaseRecord(path: "a", kind: .file, rev: 9, contentHash: "h", deleted: false))
        update.settledCommits = ["one"]
        try reopened.record(folder: "docs", update)
        #expect(try reopened.outbox(folder: "docs").map(\.id) == ["two"])
        // A resent commit's answer never replaces a newer base the feed brought meanwhile.
        update.bases = [BaseRecord(path: "a", kind: .file, rev: 5, contentHash: "old", deleted: false)]
        update.settledCommits = ["two"]
        try reopened.recordResent(folder: "docs", update)
        #expect(try reopened.baseRecord(folder: "docs", path: "a")?.rev == 9)
        #expect(try reopened.outbox(folder: "docs").isEmpty)
    }
}
