import Foundation
import GRDB
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// `LocalFileStore.put` writes a record over the path's: updated in place when the content
/// is the one recorded, replaced when it is not. Either way the row is exactly the record,
/// and the content index finds the path by its content now, never by the one before. Real
/// SQLite.
struct LocalFileStoreTests {
    static func record(_ path: String, content: String, inode: UInt64, lengths: [Int]? = nil, link: String? = nil) -> LocalRecord {
        LocalRecord(
            path: path, kind: link == nil ? .file : .symlink, inode: inode, size: Int64(inode) + 8, mtimeNs: Int64(inode) * 10,
            ctimeNs: Int64(inode) * 20, mode: link == nil ? 0o644 : 0o777, contentHash: content,
            chunks: lengths == nil ? [content] : [content + "-1", content + "-2"], symlinkTarget: link,
            chunkLengths: lengths)
    }

    @Test func aRecordIsWrittenWholeWhetherItsContentChangedOrNot() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        func put(_ records: LocalRecord...) throws {
            var update = IndexUpdate()
            update.locals = records
            try index.records.apply(folder: "f", update)
        }
        let first = Self.record("a.txt", content: "c1", inode: 1, lengths: [3, 5])
        try put(first, Self.record("b.txt", content: "c1", inode: 2))
        #expect(try index.files.record(folder: "f", path: "a.txt") == first)

        // Same content, a new stat and no lengths: every column is the new record's.
        let restat = Self.record("a.txt", content: "c1", inode: 7)
        try put(restat)
        #expect(try index.files.record(folder: "f", path: "a.txt") == restat)

        // New content: the content index finds it by the new hash only.
        let edited = Self.record("a.txt", content: "c2", inode: 8, lengths: [4, 4])
        try put(edited)
        #expect(try index.files.record(folder: "f", path: "a.txt") == edited)
        #expect(try index.files.file(folder: "f", contentHash: "c2")?.path == "a.txt")
        #expect(try index.files.file(folder: "f", contentHash: "c1")?.path == "b.txt")

        // A symlink now, same hash as before: kind and target follow the record.
        let link = Self.record("b.txt", content: "c1", inode: 9, link: "a.txt")
        try put(link)
        #expect(try index.files.record(folder: "f", path: "b.txt") == link)
        #expect(try index.files.file(folder: "f", contentHash: "c1") == nil, "a symlink is not a copy source")
        // Nothing else in the folder, nothing in another one.
        #expect(try index.files.record(folder: "g", path: "a.txt") == nil)
    }

    /// `names`: the files recorded with the inodes asked, in that folder; never a symlink or
    /// another folder's. Many inodes in one statement.
    @Test func namesAreTheFilesRecordedWithTheInodesAsked() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var update = IndexUpdate()
        update.locals = [
            Self.record("a.txt", content: "c1", inode: 5), Self.record("d/b.txt", content: "c1", inode: 5),
            Self.record("other.txt", content: "c1", inode: 6), Self.record("link", content: "c1", inode: 5, link: "a.txt"),
        ] + (1...600).map { Self.record("many/\($0)", content: "m", inode: UInt64(1000 + $0)) }
        try index.records.apply(folder: "f", update)
        var elsewhere = IndexUpdate()
        elsewhere.locals = [Self.record("e.txt", content: "c1", inode: 5)]
        try index.records.apply(folder: "g", elsewhere)

        #expect(try index.files.names(folder: "f", inodes: [5]) == ["a.txt", "d/b.txt"])
        #expect(try index.files.names(folder: "f", inodes: [5, 6, 7]) == ["a.txt", "d/b.txt", "other.txt"])
        #expect(try index.files.names(folder: "f", inodes: [7]) == [])
        #expect(try index.files.names(folder: "f", inodes: []) == [])
        #expect(try index.files.names(folder: "f", inodes: Set((1...600).map { UInt64(1000 + $0) })).count == 600)
        // An inode past Int64.max (stored by its bit pattern) is found as well.
        var high = IndexUpdate()
        var record = Self.record("high.txt", content: "h", inode: 9)
        record.inode = UInt64.max - 1
        high.locals = [record]
        try index.records.apply(folder: "f", high)
        #expect(try index.files.names(folder: "f", inodes: [UInt64.max - 1]) == ["high.txt"])
    }

    /// `put` says how it wrote each record, and the chunk listing (`local_chunks`, which files
    /// hold which chunks) follows: kept for the same chunks, made for a new path, made again
    /// for new content, gone for a symlink.
    @Test func eachPutSaysHowItWroteAndTheChunkListingFollows() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        func put(_ record: LocalRecord) throws -> [LocalFileStore.Written] {
            try index.pool.write { db in
                let written = try index.files.put(folder: "f", [record], in: db)
                try index.chunks.put(folder: "f", [record], written: written, in: db)
                return written
            }
        }
        func holders(_ hash: String) throws -> [String] {
            try index.chunks.files(folder: "f", sharingChunksWith: [hash], limit: 4).map(\.path)
        }
        // The listing's rows for the path (a listing written twice would show twice as many).
        func listed() throws -> Int {
            try index.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM local_chunks WHERE folder_id = 'f' AND path = 'a.bin'") ?? 0
            }
        }
        let first = Self.record("a.bin", content: "c1", inode: 1, lengths: [3, 5])
        #expect(try put(first) == [.added])
        #expect(try holders("c1-2") == ["a.bin"])
        #expect(try listed() == 2)

        let restat = Self.record("a.bin", content: "c1", inode: 2, lengths: [3, 5])
        #expect(try put(restat) == [.sameContent])
        #expect(try index.files.record(folder: "f", path: "a.bin") == restat)
        #expect(try holders("c1-1") == ["a.bin"])
        #expect(try listed() == 2)

        let edited = Self.record("a.bin", content: "c2", inode: 3, lengths: [4, 4])
        #expect(try put(edited) == [.replaced])
        #expect(try holders("c1-1").isEmpty, "the old chunks are no longer listed for it")
        #expect(try holders("c2-2") == ["a.bin"])
        #expect(try listed() == 2)

        // One chunk now (same content hash, other chunks): replaced, listed no more.
        let whole = Self.record("a.bin", content: "c2", inode: 4)
        #expect(try put(whole) == [.replaced])
        #expect(try holders("c2-2").isEmpty)
        #expect(try listed() == 0)

        let link = Self.record("a.bin", content: "c2", inode: 5, link: "b.bin")
        #expect(try put(link) == [.replaced], "another kind")
        #expect(try put(Self.record("a.bin", content: "c2", inode: 6, link: "b.bin")) == [.sameContent])
        #expect(try index.files.record(folder: "f", path: "a.bin")?.inode == 6)
    }

    /// A path's subtree is the path and what is below `path/`, not names that continue it
    /// (`a-x`, `a.txt`, `a0`, `ab`, and what is below them), whichever store it is asked of:
    /// removed, re-keyed by a move, and read.
    @Test func aSubtreeIsThePathAndWhatIsBelowItOnly() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        let inside = ["a", "a/b", "a/b/c", "a/\u{301}x"]
        let outside = ["a-x", "a-x/y", "a.txt", "a0", "ab", "b", "\u{E9}"]
        var update = IndexUpdate()
        update.locals = (inside + outside).enumerated().map { Self.record($1, content: "c\($0)", inode: UInt64($0 + 1)) }
        update.bases = (inside + outside).map { BaseRecord(path: $0, kind: .file, rev: 1, contentHash: "h", deleted: false) }
        try index.records.apply(folder: "f", update)
        let read = try index.records.subtree(folder: "f", at: "a")
        #expect(Set(read.locals.map(\.path)) == Set(inside))
        #expect(Set(read.bases.map(\.path)) == Set(inside))

        var move = IndexUpdate()
        move.moves = [("a", "z")]
        try index.records.apply(folder: "f", move)
        let moved = try index.records.read(folder: "f", paths: inside.map { RelativePath.moved($0, from: "a", to: "z") } + outside)
        #expect(Set(moved.local.keys) == Set(inside.map { RelativePath.moved($0, from: "a", to: "z") } + outside))
        #expect(try index.base.live(folder: "f", under: "a").isEmpty)

        var removal = IndexUpdate()
        removal.removedLocals = ["z"]
        try index.records.apply(folder: "f", removal)
        #expect(Set(try index.records.read(folder: "f", paths: inside.map { RelativePath.moved($0, from: "a", to: "z") } + outside).local.keys) == Set(outside))
    }

    /// Each store finds a subtree through its (folder_id, path) key, not by reading every row
    /// of the folder (as the plain `path = ? OR (path >= ? AND path < ?)` did: one full scan
    /// per moved or removed file).
    @Test func aSubtreeIsARangeOfTheKey() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        for table in ["local_files", "base", "local_chunks", "journal"] {
            let plan = try index.pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN DELETE FROM \(table) WHERE \(IndexSQL.subtree)",
                    arguments: IndexSQL.subtree(folder: "f", "a")).map { $0["detail"] as String? ?? "" }
            }
            #expect(plan.contains { $0.contains("(folder_id=? AND path>? AND path<?)") }, "\(table): \(plan)")
        }
    }
}
