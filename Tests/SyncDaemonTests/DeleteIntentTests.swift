import Foundation
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// `delete_intents` (decision 0033): a run of remote deletes records its tombstones with an
/// intent each. Once the first scan has checked the root, a later process puts back the
/// records of the very file a delete was removing, still at its path untouched, and keeps the
/// delete for a retry; anything else there means the delete counts as done. Real SQLite.
struct DeleteIntentTests {
    static func local(_ path: String, inode: UInt64) -> LocalRecord {
        LocalRecord(
            path: path, kind: .file, inode: inode, size: 4, mtimeNs: 1, ctimeNs: 100, mode: 0o644, contentHash: "h1",
            chunks: [], symlinkTarget: nil)
    }

    static func tombstone(_ path: String, rev: Int64) -> WireEntry {
        WireEntry(path: path, kind: .file, size: 0, mtimeNs: 0, mode: 0, chunks: [], contentHash: "h1", deleted: true, rev: rev)
    }

    static func stat(inode: UInt64, ctime: Int64) -> FileStat {
        FileStat(kind: .file, inode: inode, size: 4, mtimeNs: 1, ctimeNs: ctime, mode: 0o644)
    }

    /// Synced files at rev 1 (inode 10, 11, …; ctime 100), then a run's transaction: each
    /// tombstone at rev 2 with its intent.
    static func recordedRun(_ paths: [String], in index: IndexStore) throws {
        var synced = IndexUpdate()
        synced.bases = paths.map { GuardedUpdateTests.base($0, rev: 1) }
        synced.locals = paths.enumerated().map { Self.local($1, inode: UInt64(10 + $0)) }
        try index.records.apply(folder: "f", synced)
        var run = IndexUpdate()
        for (i, path) in paths.enumerated() {
            let entry = Self.tombstone(path, rev: 2)
            run.bases.append(entry.baseRecord)
            run.removedLocals.append(path)
            run.deleteIntents.append(
                DeleteIntent(
                    entry: entry, inode: UInt64(10 + i), ctimeNs: 100, previousLocal: synced.locals[i],
                    previousBase: synced.bases[i]))
        }
        try index.records.apply(folder: "f", run)
    }

    @Test func aLaterProcessPutsBackOnlyTheVeryFileStillThereAndAppliesItsDeleteAgain() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        let paths = ["kept", "touched", "trashed", "replaced", "unreadable", "newer"]
        try Self.recordedRun(paths, in: index)
        // A push recorded rev 3 of "newer" since.
        var pushed = IndexUpdate()
        pushed.bases = [GuardedUpdateTests.base("newer", rev: 3)]
        try index.records.apply(folder: "f", pushed)

        // This process's own intents are runs under way: left alone.
        #expect(try index.records.recoverInterruptedDeletes(folder: "f") { _ in .nothing }.isEmpty)
        #expect(try index.records.deleteIntents.removing(folder: "f").count == paths.count)

        let disk: [String: RecordStore.FoundAtPath] = [
            "kept": .file(Self.stat(inode: 10, ctime: 100)),
            "touched": .file(Self.stat(inode: 11, ctime: 101)),  // written or moved back since: the user's
            "trashed": .nothing,
            "replaced": .file(Self.stat(inode: 99, ctime: 100)),
            "unreadable": .unknown,
            "newer": .file(Self.stat(inode: 15, ctime: 100)),
        ]
        let restored = try index.records.recoverInterruptedDeletes(folder: "f", thisProcess: "a later one") { disk[$0]! }
        #expect(restored == ["kept"])
        let records = try index.records.read(folder: "f", paths: paths)
        #expect(records.local["kept"] == Self.local("kept", inode: 10), "the file still there is known again")
        #expect(records.base["kept"] == GuardedUpdateTests.base("kept", rev: 1))
        for path in ["touched", "trashed", "replaced", "unreadable"] {
            #expect(records.local[path] == nil)
            #expect(records.base[path]?.deleted == true, "\(path): the delete stands")
        }
        #expect(records.base["newer"]?.rev == 3, "a newer revision stays")
        #expect(records.local["newer"] == nil)
        // The put-back delete is applied again, whatever the feed's cursor says.
        #expect(try index.retries.due(folder: "f") == [Self.tombstone("kept", rev: 2)])
        #expect(Set(try index.records.deleteIntents.removing(folder: "f").keys) == ["unreadable"], "undecided: kept for later")
    }

    @Test func aRunsIntentsAreDroppedWithItsLastTransactionAndByAPutBack() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var run = IndexUpdate()
        run.deleteIntents = ["a", "b"].map {
            DeleteIntent(entry: Self.tombstone($0, rev: 2), inode: 1, ctimeNs: 1, previousLocal: nil, previousBase: nil)
        }
        try index.records.apply(folder: "f", run)
        try index.records.apply(folder: "g", run)
        var done = IndexUpdate()
        done.deletesDone = ["a"]
        try index.records.apply(folder: "f", done)
        #expect(Set(try index.records.deleteIntents.removing(folder: "f").keys) == ["b"])
        // A file written meanwhile: its records put back, its intent with them.
        try index.records.restore(folder: "f", path: "b", local: Self.local("b", inode: 1), base: nil)
        #expect(try index.records.deleteIntents.removing(folder: "f").isEmpty)
        #expect(try index.records.deleteIntents.left(folder: "g", thisProcess: "x").map(\.path).sorted() == ["a", "b"])
    }
}
