import Foundation
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// `RecordStore.apply(folder:guarded:)` (a batch download's records): each update is
/// written only over the base it was planned against, including a base an earlier update
/// of the same batch wrote. The bases are read together unless an update moves or removes a
/// subtree; both ways give the same result. Real SQLite.
struct GuardedUpdateTests {
    static func base(_ path: String, rev: Int64) -> BaseRecord {
        BaseRecord(path: path, kind: .file, rev: rev, contentHash: "h\(rev)", deleted: false, mode: 0o644)
    }

    static func guarded(_ path: String, rev: Int64, over previous: Int64?) -> GuardedUpdate {
        var update = IndexUpdate()
        update.bases = [base(path, rev: rev)]
        return GuardedUpdate(path: path, update: update, ifBase: previous.map { base(path, rev: $0) })
    }

    @Test(arguments: [false, true])
    func eachUpdateIsWrittenOnlyOverItsPlannedBase(withASubtreeMove: Bool) throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var setup = IndexUpdate()
        setup.bases = [Self.base("a", rev: 1), Self.base("b", rev: 1)]
        try index.records.apply(folder: "f", setup)

        var updates: [GuardedUpdate] = []
        if withASubtreeMove {
            var move = IndexUpdate()
            move.moves = [(from: "x", to: "y")]
            updates.append(GuardedUpdate(path: "y", update: move, ifBase: nil))
        }
        updates += [
            Self.guarded("a", rev: 2, over: 1),
            Self.guarded("b", rev: 3, over: 2),  // planned over a base that is not the one recorded
            Self.guarded("c", rev: 1, over: nil),
            Self.guarded("a", rev: 3, over: 2),  // over the one the first update of "a" wrote
            Self.guarded("c", rev: 5, over: nil),  // "c" has a base now
        ]
        let applied = try index.records.apply(folder: "f", guarded: updates)
        #expect(applied == Set(["a", "c"] + (withASubtreeMove ? ["y"] : [])))
        let bases = try index.records.read(folder: "f", paths: ["a", "b", "c"]).base
        #expect(bases.mapValues(\.rev) == ["a": 3, "b": 1, "c": 1])
    }

    /// A download's landing (`LandedDownload`: `BatchDownload.Landing`, EntryDownload): its
    /// record with the stat since the rename is written only over the base the download
    /// recorded; a push that recorded a newer revision of the path in between (the user
    /// edited the file once it landed) keeps its records. The intent is dropped either way.
    @Test func aLandingsRecordIsWrittenOnlyOverItsDownloadsBase() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        func local(_ path: String, inode: UInt64, hash: String) -> LocalRecord {
            LocalRecord(
                path: path, kind: .file, inode: inode, size: 4, mtimeNs: 1, ctimeNs: Int64(inode), mode: 0o644,
                contentHash: hash, chunks: [], symlinkTarget: nil)
        }
        // Both downloads recorded before their renames: base rev 2, the staged stat, an intent.
        var recorded = IndexUpdate()
        recorded.bases = [Self.base("kept", rev: 2), Self.base("edited", rev: 2)]
        recorded.locals = [local("kept", inode: 10, hash: "h2"), local("edited", inode: 20, hash: "h2")]
        recorded.intents = ["kept", "edited"].map { DownloadIntent(path: $0, stagedInode: 1, previousLocal: nil, previousBase: nil) }
        try index.records.apply(folder: "f", recorded)
        // A push of "edited" recorded rev 3 and its own local record meanwhile.
        var pushed = IndexUpdate()
        pushed.bases = [Self.base("edited", rev: 3)]
        pushed.locals = [local("edited", inode: 30, hash: "h3")]
        try index.records.apply(folder: "f", pushed)

        let landed = ["kept", "edited"].map { path in
            LandedDownload(local: local(path, inode: 11, hash: "h2"), base: Self.base(path, rev: 2))
        }
        let applied = try index.records.apply(folder: "f", guarded: [], landed: landed)
        #expect(applied == ["kept"])
        let records = try index.records.read(folder: "f", paths: ["kept", "edited"])
        #expect(records.local["kept"]?.inode == 11, "the landed stat")
        #expect(records.local["edited"]?.inode == 30, "the push's record stays")
        #expect(records.base["edited"]?.rev == 3)
        #expect(try index.records.intents.staged(folder: "f").isEmpty)
    }

    /// An update that moves a path turns its old base into a tombstone: an update of that path
    /// later in the batch, planned over the live base, is left out (the bases are read one by
    /// one with a move in the batch, not all before it).
    @Test func aMoveInTheBatchIsSeenByTheUpdatesAfterIt() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var setup = IndexUpdate()
        setup.bases = [Self.base("a", rev: 1)]
        try index.records.apply(folder: "f", setup)
        var move = IndexUpdate()
        move.moves = [(from: "a", to: "y")]
        let applied = try index.records.apply(
            folder: "f", guarded: [GuardedUpdate(path: "y", update: move, ifBase: nil), Self.guarded("a", rev: 2, over: 1)])
        #expect(applied == ["y"])
        #expect(try index.records.read(folder: "f", paths: ["a"]).base["a"]?.deleted == true)
    }

    /// A base the store left out (its update was prepared over another rev) is not taken as
    /// written: an update planned over it is left out too.
    @Test func aBaseLeftOutIsNotTakenAsWritten() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var setup = IndexUpdate()
        setup.bases = [Self.base("b", rev: 1)]
        try index.records.apply(folder: "f", setup)
        var stale = IndexUpdate()
        stale.bases = [Self.base("b", rev: 5)]
        stale.preparedOver = ["b": 7]
        let applied = try index.records.apply(
            folder: "f",
            guarded: [GuardedUpdate(path: "b", update: stale, ifBase: Self.base("b", rev: 1)), Self.guarded("b", rev: 6, over: 5)])
        #expect(applied == ["b"], "the first is applied (its base left out), the second is not")
        #expect(try index.records.read(folder: "f", paths: ["b"]).base["b"]?.rev == 1)
    }

    /// A rename's record holds only while both of its paths still have the bases it was
    /// planned against: a push that recorded a new revision of the departure meanwhile keeps
    /// it (the rename's tombstone would have overwritten it). Both ways of reading the bases.
    @Test(arguments: [false, true])
    func aRenameIsRecordedOnlyOverBothOfItsPlannedBases(removingLocals: Bool) throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var setup = IndexUpdate()
        setup.bases = [Self.base("p1", rev: 1), Self.base("p2", rev: 1)]
        try index.records.apply(folder: "f", setup)
        // A push recorded rev 2 of p2 after the renames were planned.
        var pushed = IndexUpdate()
        pushed.bases = [Self.base("p2", rev: 2)]
        try index.records.apply(folder: "f", pushed)
        func rename(_ from: String, to: String) -> GuardedUpdate {
            var update = IndexUpdate()
            update.bases = [
                BaseRecord(path: from, kind: .file, rev: 5, contentHash: "h1", deleted: true),
                BaseRecord(path: to, kind: .file, rev: 4, contentHash: "h1", deleted: false, mode: 0o644),
            ]
            if removingLocals { update.removedLocals = [from] }
            return GuardedUpdate(path: to, update: update, ifBase: nil, alsoIfBase: (from, Self.base(from, rev: 1)))
        }
        let applied = try index.records.apply(folder: "f", guarded: [rename("p1", to: "q1"), rename("p2", to: "q2")])
        #expect(applied == ["q1"])
        let bases = try index.records.read(folder: "f", paths: ["p1", "p2", "q2"]).base
        #expect(bases["p1"]?.deleted == true)
        #expect(bases["p2"] == Self.base("p2", rev: 2), "the push's revision stays")
        #expect(bases["q2"] == nil)
    }
}
