import Foundation
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// `delete_intents` (decision 0033): a run of remote deletes records its tombstones with an
/// intent each; the next start puts back the records of a file still at its path (the same
/// inode) and drops the intents of files gone. Real SQLite.
struct DeleteIntentTests {
    static func local(_ path: String, inode: UInt64) -> LocalRecord {
        LocalRecord(
            path: path, kind: .file, inode: inode, size: 4, mtimeNs: 1, ctimeNs: 1, mode: 0o644, contentHash: "h1",
            chunks: [], symlinkTarget: nil)
    }

    @Test func theNextStartPutsBackTheRecordsOfFilesStillThereAndDropsTheRest() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        let paths = ["kept", "trashed", "replaced"]
        var synced = IndexUpdate()
        synced.bases = paths.map { GuardedUpdateTests.base($0, rev: 1) }
        synced.locals = paths.enumerated().map { Self.local($1, inode: UInt64(10 + $0)) }
        try index.records.apply(folder: "f", synced)
        // The run's transaction: tombstones at rev 2, no local records, an intent each.
        var run = IndexUpdate()
        for (i, path) in paths.enumerated() {
            run.bases.append(BaseRecord(path: path, kind: .file, rev: 2, contentHash: "h1", deleted: true))
            run.removedLocals.append(path)
            run.deleteIntents.append(
                DeleteIntent(
                    path: path, inode: UInt64(10 + i), previousLocal: synced.locals[i], previousBase: synced.bases[i]))
        }
        try index.records.apply(folder: "f", run)
        #expect(try index.records.deleteIntents.paths(folder: "f") == Set(paths))

        // Killed: "kept" was never moved, "trashed" was, and something new took "replaced".
        let onDisk: [String: UInt64] = ["kept": 10, "replaced": 99]
        let restored = try index.records.recoverInterruptedDeletes(folder: "f") { onDisk[$0] }
        #expect(restored == ["kept"])
        let records = try index.records.read(folder: "f", paths: paths)
        #expect(records.local["kept"] == synced.locals[0], "the file still there is known again")
        #expect(records.base["kept"]?.rev == 1 && records.base["kept"]?.deleted == false)
        for path in ["trashed", "replaced"] {
            #expect(records.local[path] == nil)
            #expect(records.base[path]?.deleted == true, "\(path): the delete happened")
        }
        #expect(try index.records.deleteIntents.paths(folder: "f").isEmpty)
    }

    @Test func aRunsIntentsAreDroppedWithItsLastTransactionAndByAPutBack() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var run = IndexUpdate()
        run.deleteIntents = ["a", "b"].map { DeleteIntent(path: $0, inode: 1, previousLocal: nil, previousBase: nil) }
        try index.records.apply(folder: "f", run)
        try index.records.apply(folder: "g", run)
        var done = IndexUpdate()
        done.deletesDone = ["a"]
        try index.records.apply(folder: "f", done)
        #expect(try index.records.deleteIntents.paths(folder: "f") == ["b"])
        // A file written meanwhile: its records put back, its intent with them.
        try index.records.restore(folder: "f", path: "b", local: Self.local("b", inode: 1), base: nil)
        #expect(try index.records.deleteIntents.paths(folder: "f").isEmpty)
        #expect(try index.records.deleteIntents.all(folder: "g").map(\.path).sorted() == ["a", "b"], "another folder's stay")
    }
}
