import SyncCore
import Testing

@testable import SyncDaemon

/// A batch staged while the one before it committed is checked against the index before
/// it commits: an op whose index rows changed meanwhile goes back to the journal.
struct StagedPushTests {
    static func base(_ path: String, rev: Int64, deleted: Bool = false) -> BaseRecord {
        BaseRecord(path: path, kind: .file, rev: rev, contentHash: "h-\(path)", deleted: deleted, mode: deleted ? nil : 0o644)
    }

    static func local(_ path: String, inode: UInt64) -> LocalRecord {
        LocalRecord(
            path: path, kind: .file, inode: inode, size: 4, mtimeNs: 1, ctimeNs: 1, mode: 0o644, contentHash: "h-\(path)",
            chunks: [], symlinkTarget: nil)
    }

    @Test func unchangedInputsAreNotStale() {
        let read: [String: StagedPush.Inputs] = [
            "a": .init(local: Self.local("a", inode: 1), base: Self.base("a", rev: 3), liveBelow: nil),
            "new": .init(local: nil, base: nil, liveBelow: nil),
        ]
        #expect(StagedPush.stale(read, now: read).isEmpty)
    }

    @Test func aChangedBaseLocalOrLiveSetIsStale() {
        let read: [String: StagedPush.Inputs] = [
            // A tombstone prepared at rev 3; the batch before deleted it at rev 9.
            "d/c": .init(local: nil, base: Self.base("d/c", rev: 3), liveBelow: [Self.base("d/c", rev: 3)]),
            // A directory's tombstones, and the batch before added a file below it.
            "d": .init(local: nil, base: nil, liveBelow: [Self.base("d/a", rev: 2)]),
            // A file recorded anew meanwhile (another inode).
            "f": .init(local: Self.local("f", inode: 1), base: Self.base("f", rev: 1), liveBelow: nil),
            "same": .init(local: nil, base: Self.base("same", rev: 5), liveBelow: nil),
        ]
        var now = read
        now["d/c"] = .init(local: nil, base: Self.base("d/c", rev: 9, deleted: true), liveBelow: [])
        now["d"] = .init(local: nil, base: nil, liveBelow: [Self.base("d/a", rev: 2), Self.base("d/new", rev: 8)])
        now["f"] = .init(local: Self.local("f", inode: 2), base: Self.base("f", rev: 1), liveBelow: nil)
        #expect(StagedPush.stale(read, now: now) == ["d/c", "d", "f"])
        // An index that could not be read sends everything back.
        #expect(StagedPush.stale(read, now: [:]) == Set(read.keys))
    }

    @Test func setAsideSendsTheOpBackWithNothingToCommitOrRecord() {
        var staged = StagedPush()
        staged.changes = ["a": [PushDeduplicationTests.tombstone("a")], "b": [PushDeduplicationTests.tombstone("b")]]
        staged.result.finish("c", .unchanged)
        staged.result.update.locals = [Self.local("c", inode: 4), Self.local("keep", inode: 5)]
        staged.result.update.removedLocals = ["c", "gone"]
        staged.result.settle("f", .failed(DaemonError(.rejected, "no")))
        staged.setAside(["a", "c", "f"])
        #expect(staged.changes.keys.sorted() == ["b"])
        #expect(staged.result.fates["a"] == .deferred(forgetMove: false))
        #expect(staged.result.fates["c"] == .deferred(forgetMove: false), "an unchanged op goes round again too")
        #expect(staged.result.update.locals.map(\.path) == ["keep"])
        #expect(staged.result.update.removedLocals == ["gone"])
        // A failure stays what it is: it is shown, and waits for the path to change.
        guard case .failed = staged.result.fates["f"] else {
            Issue.record("a failed op lost its failure: \(String(describing: staged.result.fates["f"]))")
            return
        }
    }

    @Test func tombstonesMeetingALandingDownloadGoBack() {
        let live = PreparedChange(
            change: CommitChange(
                path: "e", baseRev: 0, kind: .file, size: 1, mtimeNs: 1, mode: 0o644, chunks: [], contentHash: "h",
                deleted: false),
            local: nil, source: .none)
        let changes: [String: [PreparedChange]] = [
            // A directory's tombstones: the download of d/a recorded its rows, not yet renamed.
            "d": [PushDeduplicationTests.tombstone("d/a"), PushDeduplicationTests.tombstone("d")],
            // A download that landed since the file was looked at.
            "f": [PushDeduplicationTests.tombstone("f")],
            "gone": [PushDeduplicationTests.tombstone("gone")],
            // Something new at a landing path is no tombstone: sent as it is.
            "e": [live],
        ]
        let all: Set<String> = ["d", "f", "gone", "e"]
        let meeting = StagedPush.meetingDownloads(changes, landing: ["d/a", "e"], patient: all) { $0 == "f" || $0 == "e" }
        #expect(meeting == ["d", "f"])
        #expect(StagedPush.meetingDownloads(changes, landing: [], patient: all) { _ in false }.isEmpty)
        // An owner out of patience no longer waits for an intent; a path present again still counts.
        #expect(StagedPush.meetingDownloads(changes, landing: ["d/a"], patient: ["f"]) { _ in false }.isEmpty)
        #expect(StagedPush.meetingDownloads(changes, landing: [], patient: []) { $0 == "f" } == ["f"])
    }

    /// A file prepared as new over a tombstone waits while it is the very file a remote delete
    /// is moving to the trash, or once it is gone; anything else there is sent.
    @Test func filesPreparedAsNewWhereARemoteDeleteIsUnderWayWait() {
        func file(_ path: String) -> PreparedChange {
            PreparedChange(
                change: CommitChange(
                    path: path, baseRev: 0, kind: .file, size: 1, mtimeNs: 1, mode: 0o644, chunks: [], contentHash: "h",
                    deleted: false),
                local: nil, source: .none)
        }
        func stat(_ inode: UInt64, ctime: Int64) -> FileStat {
            FileStat(kind: .file, inode: inode, size: 1, mtimeNs: 1, ctimeNs: ctime, mode: 0o644)
        }
        let changes: [String: [PreparedChange]] = [
            "removing": [file("removing")], "gone": [file("gone")], "new": [file("new")], "edited": [file("edited")],
            "not-over-a-tombstone": [file("not-over-a-tombstone")], "deleted": [PushDeduplicationTests.tombstone("deleted")],
        ]
        let over: Set<String> = ["removing", "gone", "new", "edited", "deleted"]
        let removing: [String: RemovedFile] = [
            "removing": RemovedFile(inode: 1, ctimeNs: 10), "edited": RemovedFile(inode: 2, ctimeNs: 20),
            "new": RemovedFile(inode: 3, ctimeNs: 30), "not-over-a-tombstone": RemovedFile(inode: 4, ctimeNs: 40),
        ]
        let disk: [String: FileStat] = [
            "removing": stat(1, ctime: 10), "edited": stat(2, ctime: 21), "new": stat(9, ctime: 30),
            "not-over-a-tombstone": stat(4, ctime: 40),
        ]
        let meeting = StagedPush.meetingDeletes(changes, overTombstones: over, removing: removing) { disk[$0] }
        #expect(meeting == ["removing", "gone"])
        // A directory a run is emptying (its ctime changed with the moves) waits; one made anew
        // at its path (another inode) is the user's.
        var emptied = stat(5, ctime: 99), anew = stat(6, ctime: 50)
        emptied.kind = .directory
        anew.kind = .directory
        let directories: [String: RemovedFile] = [
            "removing": RemovedFile(inode: 5, ctimeNs: 50, directory: true), "new": RemovedFile(inode: 7, ctimeNs: 50, directory: true),
        ]
        let now = ["removing": emptied, "new": anew]
        #expect(StagedPush.meetingDeletes(changes, overTombstones: ["removing", "new"], removing: directories) { now[$0] } == ["removing"])
        #expect(StagedPush.meetingDeletes(changes, overTombstones: over, removing: [:]) { disk[$0] } == ["gone"])
    }
}
