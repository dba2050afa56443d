import SyncCore
import Testing

@testable import SyncDaemon

/// The delete-wave guard counts only deletes whose content no live path outside the batch
/// holds (a move's tombstone, or a copy's, loses nothing). Real SQLite.
struct LostContentTests {
    static func tombstone(_ path: String, _ hash: String) -> CommitChange {
        CommitChange(path: path, baseRev: 1, kind: .file, size: 0, mtimeNs: 0, mode: 0, chunks: [], contentHash: hash, deleted: true)
    }

    @Test func aDeleteLosesContentOnlyWhenNoOtherLivePathHoldsIt() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var update = IndexUpdate()
        update.bases = [
            BaseRecord(path: "a", kind: .file, rev: 1, contentHash: "H1", deleted: false),
            BaseRecord(path: "b", kind: .file, rev: 2, contentHash: "H1", deleted: false),
            BaseRecord(path: "c", kind: .file, rev: 3, contentHash: "H2", deleted: false),
            BaseRecord(path: "d", kind: .file, rev: 4, contentHash: "H3", deleted: true),
            BaseRecord(path: "e", kind: .file, rev: 5, contentHash: "H3", deleted: false),
        ]
        try index.records.apply(folder: "f", update)
        try index.records.apply(folder: "other", update)
        // a: b holds H1. c: only c held H2. d: e holds H3. x: nobody held H4. e: d's record is a tombstone.
        let cases: [(CommitChange, lost: Bool)] = [
            (Self.tombstone("a", "H1"), false), (Self.tombstone("c", "H2"), true), (Self.tombstone("d", "H3"), false),
            (Self.tombstone("x", "H4"), true), (Self.tombstone("e", "H3"), true),
        ]
        for (t, lost) in cases {
            #expect(try index.base.countLost(folder: "f", [t]) == (lost ? 1 : 0), "\(t.path)")
        }
        // Together, d is lost too: e, which held H3, goes in the same batch.
        #expect(try index.base.countLost(folder: "f", cases.map(\.0)) == 4)
        // Both copies of H1 deleted in one batch (a folder and its backup): both are lost.
        // (Before, each counted as held by the other's record, and such a wave was never held.)
        #expect(try index.base.countLost(folder: "f", [Self.tombstone("a", "H1"), Self.tombstone("b", "H1")]) == 2)
        #expect(try index.base.countLost(folder: "nowhere", [Self.tombstone("a", "H1")]) == 1)
    }
}
