import SyncCore
import Testing

@testable import SyncDaemon

/// Which version `syncctl restore` picks from a path's history (newest first).
struct RestoreChoiceTests {
    static func v(_ rev: Int64, _ content: String, deleted: Bool = false) -> WireEntry {
        WireEntry(
            path: "a.txt", kind: .file, size: 1, mtimeNs: rev, mode: 0o644, chunks: deleted ? [] : [content],
            contentHash: deleted ? "" : content, deleted: deleted, rev: rev)
    }

    func chosen(_ history: [WireEntry], rev: Int64? = nil) -> Int64? {
        if case .success(.restore(let pick, _)) = RestoreChoice.choose(path: "a.txt", history: history, rev: rev) { return pick.rev }
        return nil
    }

    @Test func aDeletedPathGetsItsLastContent() {
        #expect(chosen([Self.v(9, "", deleted: true), Self.v(7, "two"), Self.v(3, "one")]) == 7)
    }

    @Test func anOverwrittenPathGetsTheContentBeforeTheCurrentOne() {
        // rev 8 re-committed the same bytes (a touch): skipped.
        #expect(chosen([Self.v(9, "three"), Self.v(8, "three"), Self.v(5, "two"), Self.v(2, "one")]) == 5)
    }

    @Test func anExplicitRevIsTakenWhenItHoldsContent() {
        let history = [Self.v(9, "three"), Self.v(6, "", deleted: true), Self.v(5, "two"), Self.v(2, "one")]
        #expect(chosen(history, rev: 2) == 2)
        #expect(chosen(history, rev: 6) == nil, "a deletion holds nothing to restore")
        #expect(chosen(history, rev: 9) == nil, "already current")
        #expect(RestoreChoice.choose(path: "a.txt", history: history, rev: 9) == .success(.alreadyCurrent(history[0], current: history[0])))
        #expect(chosen(history, rev: 4) == nil, "no such rev")
    }

    /// Restoring rev 2 made rev 10 with its content: asking for rev 2 again changes nothing.
    @Test func restoringTheSameVersionTwiceIsANoOp() {
        let history = [Self.v(10, "one"), Self.v(9, "three"), Self.v(2, "one")]
        #expect(RestoreChoice.choose(path: "a.txt", history: history, rev: 2) == .success(.alreadyCurrent(history[2], current: history[0])))
        // Another mode is another version.
        var other = history[0]
        other.mode = 0o755
        #expect(chosen([other] + history.dropFirst(), rev: 2) == 2)
    }

    @Test func nothingToRestore() {
        #expect(chosen([]) == nil)
        #expect(chosen([Self.v(3, "only")]) == nil)
        #expect(chosen([Self.v(4, "", deleted: true), Self.v(3, "", deleted: true)]) == nil)
    }

    @Test func theCommitRestoresOnTopOfTheCurrentRev() {
        let change = RestoreChoice.change(restoring: Self.v(5, "two"), over: Self.v(9, "", deleted: true))
        #expect(change.baseRev == 9)
        #expect(change.contentHash == "two")
        #expect(change.chunks == ["two"])
        #expect(!change.deleted)
    }
}
