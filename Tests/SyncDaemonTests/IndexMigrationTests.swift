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
        let base = try #require(try index.base.record(folder: "docs", path: "a.txt"))
        #expect(base.rev == 7 && base.contentHash == "h" && base.mode == nil)
        // A mode recorded now is read back.
        var update = IndexUpdate()
        update.bases.append(BaseRecord(path: "b", kind: .file, rev: 8, contentHash: "h2", deleted: false, mode: 0o755))
        try index.records.apply(folder: "docs", update)
        #expect(try index.base.record(folder: "docs", path: "b")?.mode == 0o755)
    }

    /// The commit outbox keeps a commit until the update that records it says so.
    @Test func anOutboxCommitLeavesWithTheUpdateThatRecordsIt() throws {
        let tmp = try TemporaryDirectory("index-outbox")
        defer { tmp.remove() }
        let dir = tmp.path
        let index = try IndexStore(path: dir + "/index.sqlite")
        let change = CommitChange(
            path: "a", baseRev: 0, kind: .file, size: 1, mtimeNs: 1, mode: 0o644, chunks: ["c"], contentHash: "h", deleted: false)
        try index.outbox.put(folder: "docs", OutboxCommit(id: "one", changes: [change]))
        try index.outbox.put(folder: "docs", OutboxCommit(id: "two", changes: [change]))
        #expect(try index.outbox.contents(folder: "docs").commits.map(\.id) == ["one", "two"])
        #expect(try index.outbox.contents(folder: "docs").commits.first?.changes == [change])
        // Reopened (a restart): still there.
        let reopened = try IndexStore(path: dir + "/index.sqlite")
        var update = IndexUpdate()
        update.bases.append(BaseRecord(path: "a", kind: .file, rev: 9, contentHash: "h", deleted: false))
        update.settledCommits = ["one"]
        try reopened.records.apply(folder: "docs", update)
        #expect(try reopened.outbox.contents(folder: "docs").commits.map(\.id) == ["two"])
        // A resent commit's answer never replaces a newer base the feed brought meanwhile.
        update.bases = [BaseRecord(path: "a", kind: .file, rev: 5, contentHash: "old", deleted: false)]
        update.settledCommits = ["two"]
        _ = try reopened.records.applyResent(folder: "docs", update)
        #expect(try reopened.base.record(folder: "docs", path: "a")?.rev == 9)
        #expect(try reopened.outbox.contents(folder: "docs").commits.isEmpty)
    }
}
