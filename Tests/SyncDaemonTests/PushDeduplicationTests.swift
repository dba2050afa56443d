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
        result.outcomes["a"] = .committed(rev: 7)
        result.failed["b"] = "rejected"
        result.transient = ["c"]
        result.unstable = ["d"]
        result.held = ["e"]
        result.inherit(["fa": "a", "fb": "b", "fc": "c", "fd": "d", "fe": "e", "fz": "nobody"])
        #expect(result.outcomes["fa"] == .committed(rev: 7))
        #expect(result.failed["fb"] == "rejected")
        #expect(result.transient.contains("fc"))
        #expect(result.unstable.contains("fd"))
        #expect(result.held.contains("fe"))
        #expect(result.outcomes["fz"] == .unchanged)
    }
}
