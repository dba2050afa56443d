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

    /// Records from before chunk lengths were kept upgrade with none (the file is read when a
    /// download wants its chunks), and take lengths from then on.
    @Test func anIndexFromBeforeChunkLengthsWereKeptUpgrades() throws {
        let tmp = try TemporaryDirectory("index-upgrade-lengths")
        defer { tmp.remove() }
        let path = tmp.path + "/index.sqlite"
        do {
            let queue = try DatabaseQueue(path: path)
            try IndexStore.migrator.migrate(queue, upTo: "v9-path-error-codes")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO local_files (folder_id, path, kind, inode, size, mtime_ns, ctime_ns, mode, content_hash, chunks)
                    VALUES ('docs', 'big.bin', 'file', 5, 30, 1, 1, 420, 'c', 'h1,h2');
                    INSERT INTO local_chunks (folder_id, hash, path) VALUES ('docs', 'h1', 'big.bin'), ('docs', 'h2', 'big.bin');
                    """)
            }
        }
        let index = try IndexStore(path: path)
        let old = try #require(try index.files.record(folder: "docs", path: "big.bin"))
        #expect(old.chunks == ["h1", "h2"] && old.chunkLengths == nil && old.chunkLayout == nil)
        #expect(try index.chunks.files(folder: "docs", sharingChunksWith: ["h2"], limit: 4).map(\.path) == ["big.bin"])
        var record = old
        record.chunkLengths = [12, 18]
        var update = IndexUpdate()
        update.locals = [record]
        try index.records.apply(folder: "docs", update)
        #expect(try index.files.record(folder: "docs", path: "big.bin")?.chunkLayout?.map(\.offset) == [0, 12])
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
