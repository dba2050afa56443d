import SyncCore
import Testing

@testable import SyncDaemon

/// A vanished directory's tombstones repeat paths that have ops of their own:
/// every change is sent once and every op gets an outcome.
struct PushDeduplicationTests {
    static func tombstone(_ path: String) -> PreparedChange {
        PreparedChange(
            change: CommitChange(
                path: path, baseRev: 1, kind: .file, size: 0, mtimeNs: 0, mode: 0o644, chunks: [],
                contentHash: "", deleted: true),
            local: nil, source: .none)
    }

    @Test func eachChangeIsSentByItsOwnOp() {
        var changes = [
            "d": ["d", "d/a", "d/b"].map(Self.tombstone),
            "d/a": [Self.tombstone("d/a")],
        ]
        let followers = Uploader.deduplicate(&changes)
        #expect(changes["d"]?.map(\.change.path) == ["d", "d/b"])
        #expect(changes["d/a"]?.map(\.change.path) == ["d/a"])
        #expect(followers.isEmpty)
    }

    @Test func anOpWithNothingLeftFollowsTheSender() {
        // "d/x" prepared a list that lacks its own path (its change is the directory's).
        var changes = ["d": ["d", "d/x"].map(Self.tombstone), "d/x/y": [Self.tombstone("d/x")]]
        let followers = Uploader.deduplicate(&changes)
        #expect(changes["d/x/y"] == nil)
        #expect(followers == ["d/x/y": "d"])
    }

    @Test func followersInheritTheSendersFate() {
        var result = PushBatchResult()
        result.finish("a", .committed(rev: 7))
        result.settle("b", .failed(DaemonError(.rejected, "rejected")))
        result.settle("c", .transient)
        result.settle("d", .unstable)
        result.settle("e", .held)
        result.inherit(["fa": "a", "fb": "b", "fc": "c", "fd": "d", "fe": "e", "fz": "nobody"])
        #expect(result.fates["fa"] == .done(.committed(rev: 7)))
        #expect(result.fates["fb"] == .failed(DaemonError(.rejected, "rejected")))
        #expect(result.fates["fc"] == .transient)
        #expect(result.fates["fd"] == .unstable)
        #expect(result.fates["fe"] == .held)
        #expect(result.fates["fz"] == .done(.unchanged))
    }

    /// One op may send several changes: the path keeps the fate that leaves work to do.
    @Test func aPathKeepsTheFateThatLeavesWorkToDo() {
        var result = PushBatchResult()
        result.finish("a", .committed(rev: 3))
        result.settle("a", .transient)
        result.finish("a", .committed(rev: 4))
        #expect(result.fates["a"] == .transient)
        result.settle("a", .failed(DaemonError(.rejected, "no")))
        result.settle("a", .unstable)
        #expect(result.fates["a"] == .failed(DaemonError(.rejected, "no")))
        // Among outcomes, the later one (the op's own path, a conflict) is told.
        result.finish("b", .committed(rev: 5))
        result.finish("b", .conflict(remoteRev: 6))
        #expect(result.outcome(of: "b") == .conflict(remoteRev: 6))
    }
}

/// The base records a committed directory move leaves on the mover.
struct MoveRecordsTests {
    static func base(_ path: String, rev: Int64, deleted: Bool = false) -> BaseRecord {
        BaseRecord(path: path, kind: .file, rev: rev, contentHash: "h", deleted: deleted)
    }

    @Test func arrivalsAndDeparturesAtTheirRevisions() {
        let known = [Self.base("d", rev: 1), Self.base("d/a", rev: 3), Self.base("d/b", rev: 4), Self.base("d/é/c", rev: 5)]
        // The server moved d/a at a newer rev (edited elsewhere), d and d/é/c as known, and
        // d/new that this device never saw; d/b had been deleted there. Revs 20…27.
        let moved = [MovedEntry(path: "d", rev: 1), MovedEntry(path: "d/a", rev: 9), MovedEntry(path: "d/new", rev: 7),
                     MovedEntry(path: "d/é/c", rev: 5)]
        let bases = MoveRecords.bases(known: known, moved: moved, firstRev: 20, from: "d", to: "x/y")
        #expect(bases == [
            Self.base("d", rev: 27, deleted: true), Self.base("x/y", rev: 20),
            // Newer there: keeps the known rev, so the feed brings rev 21's content.
            Self.base("d/a", rev: 26, deleted: true), Self.base("x/y/a", rev: 3),
            Self.base("d/é/c", rev: 24, deleted: true), Self.base("x/y/é/c", rev: 23),
        ])
    }
}
