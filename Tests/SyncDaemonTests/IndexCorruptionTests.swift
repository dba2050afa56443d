import Foundation
import GRDB
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A row of the index holding a value no release writes is a corrupt index, said as such
/// (table, column, value and the row's path): never read as a default, never a crash.
struct IndexCorruptionTests {
    /// An index with one row written behind the stores' back.
    static func index(_ label: String, _ sql: String) throws -> (IndexStore, TemporaryDirectory) {
        let tmp = try TemporaryDirectory(label)
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        try index.pool.write { db in try db.execute(sql: sql) }
        return (index, tmp)
    }

    static func expectCorrupt(
        _ column: String, _ value: String, path: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
        _ read: () throws -> Void
    ) {
        do {
            try read()
            Issue.record("read a corrupt row", sourceLocation: sourceLocation)
        } catch let error as DaemonError {
            #expect(error.code == .corruptIndex, sourceLocation: sourceLocation)
            #expect(error.message.contains("column \(column)") && error.message.contains(value), "\(error)", sourceLocation: sourceLocation)
            #expect(error.path == path, sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a corrupt-index error: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// It was read as a file (a directory or symlink then planned as a file's content).
    @Test func anUnknownKindInTheIndexIsAnErrorNotAFile() throws {
        let (index, tmp) = try Self.index("index-corrupt", """
            INSERT INTO base (folder_id, path, kind, rev, content_hash, deleted) VALUES ('docs', 'odd', 'fifo', 3, 'h', 0)
            """)
        defer { tmp.remove() }
        Self.expectCorrupt("kind", "\"fifo\"", path: "odd") { _ = try index.base.record(folder: "docs", path: "odd") }
        Self.expectCorrupt("kind", "\"fifo\"", path: "odd") { _ = try index.records.read(folder: "docs", paths: ["odd"]) }
        Self.expectCorrupt("kind", "\"fifo\"", path: "odd") { _ = try index.base.live(folder: "docs", under: "odd") }
        // The scan's narrow read too (it took an unknown kind for "not a directory").
        Self.expectCorrupt("kind", "\"fifo\"", path: "odd") { _ = try index.records.scanBaseline(folder: "docs") }
        do {
            _ = try index.base.record(folder: "docs", path: "odd")
        } catch let error as DaemonError {
            #expect(error.description.contains("base") && error.description.contains("fifo"))
        }
    }

    /// SQLite keeps text in an INTEGER column as text: read as a number it would be 0.
    /// (The scan's narrow read takes the fast path: there a wrong stat only means the file
    /// is read again.)
    @Test func aValueOfAnotherTypeIsAnError() throws {
        let (index, tmp) = try Self.index("index-mistyped", """
            INSERT INTO local_files (folder_id, path, kind, inode, size, mtime_ns, ctime_ns, mode, content_hash, chunks)
            VALUES ('docs', 'a', 'file', 'many', 1, 1, 1, 420, 'h', 'c');
            INSERT INTO local_files (folder_id, path, kind, inode, size, mtime_ns, ctime_ns, mode, content_hash, chunks)
            VALUES ('docs', 'b', 'file', 7, 1, 1, 1, 1099511627776, 'h', 'c');
            """)
        defer { tmp.remove() }
        Self.expectCorrupt("inode", "\"many\"", path: "a") { _ = try index.files.record(folder: "docs", path: "a") }
        Self.expectCorrupt("mode", "1099511627776", path: "b") { _ = try index.files.record(folder: "docs", path: "b") }
    }

    /// A JSON column that does not decode names its row.
    @Test func unreadableJSONIsAnError() throws {
        let (index, tmp) = try Self.index("index-json", """
            INSERT INTO remote_retry (folder_id, path, rev, entry, attempts, next_attempt_at, last_error)
            VALUES ('docs', 'r', 4, '{"path":', 1, 0, 'disk full');
            INSERT INTO download_intents (folder_id, path, staged_inode, previous_local, previous_base)
            VALUES ('docs', 'd', 9, NULL, '[]');
            """)
        defer { tmp.remove() }
        Self.expectCorrupt("entry", "{\\\"path\\\":", path: "r") { _ = try index.retries.due(folder: "docs") }
        Self.expectCorrupt("previous_base", "[]", path: "d") {
            _ = try index.records.recoverInterruptedDownloads(folder: "docs") { _ in nil }
        }
        // A download that landed needs nothing from its row but the inode.
        #expect(try index.records.recoverInterruptedDownloads(folder: "docs") { _ in 9 }.isEmpty)
    }

    /// The outbox reads what it can and names the rest by id (`replayOutbox` drops those).
    @Test func anUnreadableOutboxRowIsNamedByItsId() throws {
        let (index, tmp) = try Self.index("index-outbox-corrupt", """
            INSERT INTO commit_outbox (folder_id, commit_id, changes, created_at) VALUES ('docs', 'bad', 'not json', 1)
            """)
        defer { tmp.remove() }
        let change = CommitChange(
            path: "a", baseRev: 0, kind: .file, size: 1, mtimeNs: 1, mode: 0o644, chunks: ["c"], contentHash: "h", deleted: false)
        try index.outbox.put(folder: "docs", OutboxCommit(id: "good", changes: [change]), now: Date(timeIntervalSince1970: 2))
        let contents = try index.outbox.contents(folder: "docs")
        #expect(contents.commits == [OutboxCommit(id: "good", changes: [change])])
        #expect(contents.unreadable.map { $0.id } == ["bad"])
        #expect(contents.unreadable.first?.error.code == .corruptIndex)
        #expect(contents.unreadable.first?.error.message.contains("commit_outbox") == true)
    }
}
