import Foundation
import Logging
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
    static func recordedRun(_ paths: [String], directories: Bool = false, in index: IndexStore) throws {
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
                    entry: entry, inode: UInt64(10 + i), ctimeNs: 100, directory: directories, previousLocal: synced.locals[i],
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

        // This process's own intents are runs under way: not left for it to resolve.
        #expect(try index.records.deleteIntents.left(folder: "f").intents.isEmpty)
        let left = try index.records.deleteIntents.left(folder: "f", thisProcess: "a later one")
        #expect(left.intents.count == paths.count && left.unreadable.isEmpty)

        // A failed barrier showed an error for "trashed".
        try index.errors.show(folder: "f", path: "trashed", error: DaemonError(.interrupted, "moved to the trash, perhaps not durably"), origin: .remote)
        // Another error shown at "replaced" since (a push of the user's new file there) stays.
        try index.errors.show(folder: "f", path: "replaced", error: DaemonError(.diskFull, "disk full"), origin: .push)
        let disk: [String: RecordStore.FoundAtPath] = [
            "kept": .file(Self.stat(inode: 10, ctime: 100)),
            "touched": .file(Self.stat(inode: 11, ctime: 101)),  // written or moved back since: the user's
            "trashed": .nothing,
            "replaced": .file(Self.stat(inode: 99, ctime: 100)),
            "unreadable": .unknown,
            "newer": .file(Self.stat(inode: 15, ctime: 100)),
        ]
        let restored = try index.records.recoverInterruptedDeletes(folder: "f", left.intents) { disk[$0]! }
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
        // The delete applied again shows why meanwhile; the one settled no longer shows its error.
        let shown = Dictionary(uniqueKeysWithValues: try index.errors.list(folder: "f").map { ($0.path, $0.code) })
        #expect(shown == ["kept": "interrupted", "replaced": "disk_full"])
    }

    /// A directory's delete removes it (`rmdir`) once its run has emptied it, which changes
    /// its ctime: a directory is the one its delete removes by its inode alone (the intent's
    /// `directory` column, written and read back).
    @Test func aDirectoryIsStillTheOneItsDeleteRemovesByItsInodeAlone() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        try Self.recordedRun(["photos", "gone", "now-a-file", "other"], directories: true, in: index)
        let left = try index.records.deleteIntents.left(folder: "f", thisProcess: "a later one")
        #expect(left.intents.allSatisfy { $0.directory })
        #expect(try index.records.deleteIntents.removing(folder: "f").values.allSatisfy { $0.directory })
        func directory(inode: UInt64, ctime: Int64) -> FileStat {
            FileStat(kind: .directory, inode: inode, size: 0, mtimeNs: 1, ctimeNs: ctime, mode: 0o755)
        }
        let disk: [String: RecordStore.FoundAtPath] = [
            "photos": .file(directory(inode: 10, ctime: 555)),  // emptied by its run, its rmdir lost
            "gone": .nothing,
            "now-a-file": .file(Self.stat(inode: 12, ctime: 555)),  // the same inode, a file now: not it
            "other": .file(directory(inode: 77, ctime: 100)),  // made anew by the user
        ]
        let restored = try index.records.recoverInterruptedDeletes(folder: "f", left.intents) { disk[$0]! }
        #expect(restored == ["photos"])
        #expect(try index.retries.due(folder: "f").map(\.path) == ["photos"])
        #expect(try index.records.deleteIntents.removing(folder: "f").isEmpty)
        // A file's intent still wants its ctime too.
        #expect(!RemovedFile(inode: 10, ctimeNs: 100).isStill(Self.stat(inode: 10, ctime: 101)))
        #expect(RemovedFile(inode: 10, ctimeNs: 100, directory: true).isStill(directory(inode: 10, ctime: 101)))
    }

    /// A row that cannot be read does not keep the others from being resolved.
    @Test func anUnreadableIntentIsSetAsideNotFatal() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        try Self.recordedRun(["a", "b"], in: index)
        try index.pool.write { db in
            try db.execute(sql: "UPDATE delete_intents SET entry = '{not json' WHERE path = 'a'")
        }
        let left = try index.records.deleteIntents.left(folder: "f", thisProcess: "a later one")
        #expect(left.intents.map(\.path) == ["b"])
        #expect(left.unreadable == ["a"])
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
        #expect(try index.records.deleteIntents.left(folder: "g", thisProcess: "x").intents.map(\.path).sorted() == ["a", "b"])
    }

    /// On a real folder: an empty root (an unmounted disk, say) with intents left is not
    /// judged; once the files are there, the one a cut run was removing gets its records back.
    @Test func anEmptyRootLeavesTheIntentsForALaterScan() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        let root = tmp.path + "/folder"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: root + "/a"))
        guard case .found(let stat) = FolderRoot(root).lstat("a") else {
            Issue.record("no file")
            return
        }
        var synced = IndexUpdate()
        synced.bases = [GuardedUpdateTests.base("a", rev: 1)]
        synced.locals = [Self.local("a", inode: stat.inode)]
        try index.records.apply(folder: "f", synced)
        let entry = Self.tombstone("a", rev: 2)
        var run = RemoteApplier.deleteRecords(entry)
        run.deleteIntents = [
            DeleteIntent(entry: entry, inode: stat.inode, ctimeNs: stat.ctimeNs, previousLocal: synced.locals[0], previousBase: synced.bases[0])
        ]
        try index.records.apply(folder: "f", run)
        // Written by a process before this one.
        try index.pool.write { db in try db.execute(sql: "UPDATE delete_intents SET session = 'earlier'") }
        let housekeeping = FolderHousekeeping(
            folder: "f", root: FolderRoot(root), index: index, trash: Trash(root: tmp.path + "/trash"), trashRetention: .seconds(60),
            logger: Logger(label: "delete-intent-test"))

        #expect(try housekeeping.recoverInterruptedDeletes(rootIsEmpty: true) == .deferred)
        #expect(try index.records.read(folder: "f", paths: ["a"]).local["a"] == nil)
        #expect(try index.records.deleteIntents.removing(folder: "f").keys.contains("a"))

        #expect(try housekeeping.recoverInterruptedDeletes(rootIsEmpty: false) == .resolved(restoredAny: true))
        #expect(try index.records.read(folder: "f", paths: ["a"]).local["a"]?.inode == stat.inode)
        #expect(try index.records.deleteIntents.removing(folder: "f").isEmpty)
        #expect(try housekeeping.recoverInterruptedDeletes(rootIsEmpty: true) == .resolved(restoredAny: false), "nothing left")
    }
}
