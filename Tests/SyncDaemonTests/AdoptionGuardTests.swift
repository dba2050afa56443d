import Foundation
import Testing
import TestSupport

@testable import SyncDaemon

/// A push's reply may adopt the server's revision instead of applying the change (the server
/// held what it meant already). The adoption holds only over the base the change was
/// prepared against: a download that landed at the path since keeps its records, and the
/// path is looked at again. On a real SQLite index.
struct AdoptionGuardTests {
    static let prepared = BaseRecord(path: "notes", kind: .file, rev: 11, contentHash: "h-old", deleted: false, mode: 0o644)
    static let downloaded = BaseRecord(path: "notes", kind: .file, rev: 58, contentHash: "h-new", deleted: false, mode: 0o644)
    static let downloadedLocal = LocalRecord(
        path: "notes", kind: .file, inode: 7, size: 4, mtimeNs: 1, ctimeNs: 1, mode: 0o644, contentHash: "h-new", chunks: [],
        symlinkTarget: nil)

    /// The adoption of another device's delete (rev 78) for a tombstone prepared over rev 11.
    static var adoptedDelete: IndexUpdate {
        var update = IndexUpdate()
        update.bases = [BaseRecord(path: "notes", kind: .file, rev: 78, contentHash: "h-old", deleted: true)]
        update.removedLocals = ["notes"]
        update.preparedOver = ["notes": prepared.rev]
        return update
    }

    static func store(base: BaseRecord) throws -> (IndexStore, TemporaryDirectory) {
        let tmp = try TemporaryDirectory("adoption-guard")
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        var update = IndexUpdate()
        update.bases = [base]
        try index.records.apply(folder: "f", update)
        return (index, tmp)
    }

    @Test func anAdoptionOverTheBaseItWasPreparedAgainstIsRecorded() throws {
        let (index, tmp) = try Self.store(base: Self.prepared)
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["notes"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        let again = try index.journal.finish(folder: "f", done: ["notes"], update: IndexUpdateBox(Self.adoptedDelete))
        #expect(again.isEmpty)
        #expect(try index.base.record(folder: "f", path: "notes")?.rev == 78)
        #expect(try index.journal.pendingCount(folder: "f") == 0)
    }

    @Test func aDownloadThatLandedSinceKeepsItsRecordsAndThePathIsLookedAtAgain() throws {
        let (index, tmp) = try Self.store(base: Self.prepared)
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["notes"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        // The download of rev 58 lands after the tombstone was prepared over rev 11.
        var landed = IndexUpdate()
        landed.bases = [Self.downloaded]
        landed.locals = [Self.downloadedLocal]
        try index.records.apply(folder: "f", landed)

        let again = try index.journal.finish(folder: "f", done: ["notes"], update: IndexUpdateBox(Self.adoptedDelete))
        #expect(again == ["notes"])
        let records = try index.records.read(folder: "f", paths: ["notes"])
        #expect(records.base["notes"] == Self.downloaded, "the adoption replaced the download's base")
        #expect(records.local["notes"] == Self.downloadedLocal, "the adoption dropped the download's local record")
        #expect(try index.journal.claim(folder: "f", limit: 10).map(\.path) == ["notes"])
    }

    /// An adopted change that no op of its own sent (a tombstone below a vanished directory)
    /// gets an op when its adoption no longer holds.
    @Test func aPathWithoutAnOpOfItsOwnGetsOne() throws {
        let (index, tmp) = try Self.store(base: Self.prepared)
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["d"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        var landed = IndexUpdate()
        landed.bases = [Self.downloaded]
        try index.records.apply(folder: "f", landed)

        let again = try index.journal.finish(folder: "f", done: ["d"], update: IndexUpdateBox(Self.adoptedDelete))
        #expect(again == ["notes"])
        #expect(try index.base.record(folder: "f", path: "notes") == Self.downloaded)
        #expect(try index.journal.claim(folder: "f", limit: 10).map(\.path) == ["notes"])
    }

    /// The feed recorded the revision the update records already: nothing to look at again.
    @Test func anUpdateWhoseRevisionIsRecordedAlreadyHolds() throws {
        let (index, tmp) = try Self.store(base: BaseRecord(path: "notes", kind: .file, rev: 78, contentHash: "h-old", deleted: true))
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["notes"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        let again = try index.journal.finish(folder: "f", done: ["notes"], update: IndexUpdateBox(Self.adoptedDelete))
        #expect(again.isEmpty)
        #expect(try index.journal.pendingCount(folder: "f") == 0)
    }

    /// A change the server applied (rev 12, over rev 11) whose reply came late, after a
    /// download of a later revision (58) landed: the download's records stay.
    @Test func anAppliedChangeRecordedAfterALaterDownloadIsLeftOut() throws {
        let (index, tmp) = try Self.store(base: Self.downloaded)
        defer { tmp.remove() }
        var applied = IndexUpdate()
        applied.bases = [BaseRecord(path: "notes", kind: .file, rev: 12, contentHash: "h-old", deleted: true)]
        applied.removedLocals = ["notes"]
        applied.notOverNewer = ["notes"]
        let again = try index.journal.finish(folder: "f", done: [], update: IndexUpdateBox(applied))
        #expect(again == ["notes"])
        #expect(try index.base.record(folder: "f", path: "notes") == Self.downloaded)
    }

    /// A new file the server applied (rev 75, over no base) whose reply is recorded after the
    /// feed adopted an older tombstone of the path (rev 68, another device's delete, which
    /// the server took the new file over): the commit is recorded. Left out, the device's
    /// later delete of the file was never sent (found by kill -9 seed 2732368668).
    @Test func anAppliedChangeRecordedOverAnOlderTombstoneIsRecorded() throws {
        let (index, tmp) = try Self.store(base: BaseRecord(path: "b.txt", kind: .file, rev: 68, contentHash: "h-x", deleted: true))
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["b.txt"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        var applied = IndexUpdate()
        applied.bases = [BaseRecord(path: "b.txt", kind: .file, rev: 75, contentHash: "h-b", deleted: false, mode: 0o644)]
        applied.notOverNewer = ["b.txt"]
        let again = try index.journal.finish(folder: "f", done: ["b.txt"], update: IndexUpdateBox(applied))
        #expect(again.isEmpty)
        #expect(try index.base.record(folder: "f", path: "b.txt")?.rev == 75)
    }

    /// A resent commit's adoption of the revision the feed recorded already: nothing to do.
    @Test func aResentCommitsAdoptionOfARevisionRecordedAlreadyHolds() throws {
        let recorded = BaseRecord(path: "notes", kind: .file, rev: 78, contentHash: "h-old", deleted: true)
        let (index, tmp) = try Self.store(base: recorded)
        defer { tmp.remove() }
        var update = Self.adoptedDelete
        update.removedLocals = []
        #expect(try index.records.applyResent(folder: "f", update).isEmpty)
        #expect(try index.base.record(folder: "f", path: "notes") == recorded)
    }

    /// A resent commit's answer (after a lost reply or a restart) holds to the same rule.
    @Test func aResentCommitsAdoptionHoldsOnlyOverItsPreparedBase() throws {
        let (index, tmp) = try Self.store(base: Self.downloaded)
        defer { tmp.remove() }
        var update = Self.adoptedDelete
        update.removedLocals = []
        let outdated = try index.records.applyResent(folder: "f", update)
        #expect(outdated == ["notes"])
        #expect(try index.base.record(folder: "f", path: "notes") == Self.downloaded)
    }
}
