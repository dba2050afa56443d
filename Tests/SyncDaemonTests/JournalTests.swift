import Foundation
import Testing
import TestSupport

@testable import SyncDaemon

/// The journal on a real SQLite file.
struct JournalTests {
    static func store() throws -> (IndexStore, TemporaryDirectory) {
        let tmp = try TemporaryDirectory("journal")
        return (try IndexStore(path: tmp.path + "/index.sqlite"), tmp)
    }

    @Test func onePendingOpPerPath() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["a", "b", "a"])
        try index.journal.enqueue(folder: "f", paths: ["a"])
        #expect(try index.journal.pendingCount(folder: "f") == 2)
        #expect(try index.journal.pendingCount(folder: "other") == 0)
    }

    @Test func requestWhileRunningMarksDirtyAndRunsAgain() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["a", "b"])
        let claimed = try index.journal.claim(folder: "f", limit: 10)
        #expect(Set(claimed.map(\.path)) == ["a", "b"])
        #expect(try index.journal.claim(folder: "f", limit: 10).isEmpty, "running ops are not claimed twice")
        let running = try index.journal.enqueue(folder: "f", paths: ["a"])
        #expect(running == ["a"])
        let again = try index.journal.finish(folder: "f", done: ["a", "b"], update: .empty)
        #expect(again == ["a"])
        #expect(try index.journal.claim(folder: "f", limit: 10).map(\.path) == ["a"])
    }

    /// A directory moved away while a push of a file below it runs (prepared while it was
    /// there): no event names the file, yet its op runs once more and finds it gone
    /// (a convergence run saw the file's creation committed and its tombstone never sent).
    @Test func aMoveOfADirectoryMarksTheOpsRunningBelowItsOldNameDirty() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["sub/c.md", "sub2/x", "other/y"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        let running = try index.journal.enqueue(folder: "f", paths: ["d1", "sub"], moves: ["d1": "sub"])
        #expect(running == ["sub/c.md"], "sub2/x and other/y are not below sub")
        let again = try index.journal.finish(folder: "f", done: ["sub/c.md", "sub2/x", "other/y"], update: IndexUpdateBox(IndexUpdate()))
        #expect(again == ["sub/c.md"])
        // After the move: if it commits, the file's rows go with it and the rerun sends nothing.
        #expect(try index.journal.claim(folder: "f", limit: 10).map(\.path) == ["d1", "sub", "sub/c.md"])
    }

    @Test func survivesReopenAndResumesRunningOps() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["a", "b", "c"])
        _ = try index.journal.claim(folder: "f", limit: 2)
        let reopened = try IndexStore(path: tmp.path + "/index.sqlite")
        #expect(try reopened.journal.claim(folder: "f", limit: 10).count == 1)
        try reopened.journal.resumeInterrupted()
        #expect(try reopened.journal.claim(folder: "f", limit: 10).count == 3)
    }

    @Test func rescheduledOpsWaitForTheirTime() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["a"])
        _ = try index.journal.claim(folder: "f", limit: 1)
        let later = Date().addingTimeInterval(60)
        let cause = SystemCallError(call: "connect", errno: ECONNREFUSED)
        try index.journal.reschedule(
            folder: "f", paths: ["a"], error: DaemonError(.serverUnreachable, "down", underlying: cause), retryAt: later)
        #expect(try index.journal.claim(folder: "f", limit: 1).isEmpty)
        #expect(try index.journal.claim(folder: "f", limit: 1, now: later.addingTimeInterval(1)).map(\.attempts) == [1])
        let errors = try index.errors.list(folder: "f")
        #expect(errors.map(\.message) == ["down"])
        #expect(errors.first?.retryAt != nil)
        // The code and the cause are kept for `--json`.
        #expect(errors.first?.code == "server_unreachable")
        #expect(errors.first?.cause?.contains("connect") == true, "\(String(describing: errors.first?.cause))")
    }

    /// Which of many paths have a push queued or running, in few queries (a feed page's own
    /// entries): more paths than one query takes, in another folder too.
    @Test func pendingPushesAmongManyPaths() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        let queued = (0..<700).filter { $0 % 3 == 0 }.map { "d/\($0)" }
        try index.journal.enqueue(folder: "f", paths: queued)
        try index.journal.enqueue(folder: "g", paths: ["d/1"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        let asked = (0..<700).map { "d/\($0)" }
        #expect(try index.journal.pendingPushes(folder: "f", among: asked) == Set(queued), "pending and running alike")
        #expect(try index.journal.pendingPushes(folder: "g", among: asked) == ["d/1"])
        #expect(try index.journal.pendingPushes(folder: "f", among: []).isEmpty)
    }

    /// A finished push clears the error its path showed, and only that one.
    @Test func aFinishedPushClearsItsOwnPathsError() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["a", "b", "c"])
        _ = try index.journal.claim(folder: "f", limit: 3)
        let now = Date()
        try index.journal.reschedule(folder: "f", paths: ["a", "b"], error: DaemonError(.io, "boom"), retryAt: now)
        #expect(try index.journal.claim(folder: "f", limit: 3, now: now.addingTimeInterval(1)).map(\.path) == ["a", "b"])
        let again = try index.journal.finish(folder: "f", done: ["a", "c"], update: .empty)
        #expect(again.isEmpty)
        #expect(try index.errors.list(folder: "f").map(\.path) == ["b"])
        #expect(try index.journal.pendingCount(folder: "f") == 1, "b is still running")
    }

    /// A remote delete left to the next start keeps its error when an op of its path finishes
    /// (the trash move's own event): only that start settles it.
    @Test func aFinishedPushLeavesAnInterruptedDeletesError() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        try index.errors.show(folder: "f", path: "a", error: DaemonError(.interrupted, "moved to the trash, perhaps not durably"), origin: .remote)
        try index.journal.enqueue(folder: "f", paths: ["a"])
        _ = try index.journal.claim(folder: "f", limit: 1)
        _ = try index.journal.finish(folder: "f", done: ["a"], update: .empty)
        #expect(try index.errors.list(folder: "f").map(\.code) == ["interrupted"])
    }

    /// A move's old name is kept with its op (across a reopen), survives a plain
    /// request for the same path, and is dropped when released as "push plainly".
    @Test func movesKeepTheirOldNameUntilForgotten() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["new", "old"], moves: ["new": "old"])
        try index.journal.enqueue(folder: "f", paths: ["new"])
        let reopened = try IndexStore(path: tmp.path + "/index.sqlite")
        let claimed = try reopened.journal.claim(folder: "f", limit: 10)
        #expect(claimed.map(\.path) == ["new", "old"], "the destination first")
        #expect(claimed.map(\.moveFrom) == ["old", nil])
        try reopened.journal.release(folder: "f", paths: ["new", "old"], forgetMove: ["new"])
        #expect(try reopened.journal.claim(folder: "f", limit: 10).map(\.moveFrom) == [nil, nil])
        #expect(try reopened.errors.list(folder: "f").isEmpty, "a release is not an error")
    }

    /// A file renamed onto the old name of a file whose move is on its way (p13 → p12 running,
    /// then p14 → p13): the op of p13 runs once more, as the move from p14, not as new content
    /// beside a delete of p14 (a CI run saw the renumbering chain go up that way).
    @Test func aMoveOntoAPathWhoseOpRunsIsPushedAsAMoveByTheRerun() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["p12", "p13"], moves: ["p12": "p13"])
        #expect(try index.journal.claim(folder: "f", limit: 10).map(\.moveFrom) == ["p13", nil])
        let running = try index.journal.enqueue(folder: "f", paths: ["p13", "p14"], moves: ["p13": "p14"])
        #expect(running == ["p13"])
        // A plain request for it after the move (a write) keeps the move for the rerun.
        try index.journal.enqueue(folder: "f", paths: ["p13"])
        let again = try index.journal.finish(folder: "f", done: ["p12", "p13"], update: .empty)
        #expect(again == ["p13"])
        let claimed = try index.journal.claim(folder: "f", limit: 10)
        #expect(Dictionary(uniqueKeysWithValues: claimed.map { ($0.path, $0.moveFrom ?? "-") }) == ["p13": "p14", "p14": "-"])
        // Its next run ends with nothing new: the move is done, no rerun carries it again.
        #expect(try index.journal.finish(folder: "f", done: ["p13", "p14"], update: .empty).isEmpty)
        #expect(try index.journal.pendingCount(folder: "f") == 0)
    }

    /// An op that stops running without ending (put back, retried later, interrupted by a
    /// restart) takes the move that brought its path here meanwhile; without one it keeps its
    /// own. A delete held for approval is held whatever came meanwhile, without the move.
    @Test func anOpPutBackTakesTheMoveThatCameWhileItRan() throws {
        for end in ["release", "reschedule", "restart", "hold"] {
            let (index, tmp) = try Self.store()
            defer { tmp.remove() }
            try index.journal.enqueue(folder: "f", paths: ["a", "b", "x"], moves: ["b": "x"])
            _ = try index.journal.claim(folder: "f", limit: 10)
            try index.journal.enqueue(folder: "f", paths: ["a", "c"], moves: ["a": "c"])
            switch end {
            case "release": try index.journal.release(folder: "f", paths: ["a", "b", "x"])
            case "reschedule":
                // Later for the others; at once for `a`, which holds other content now (its
                // source's op, due now, must not go up alone first, as a delete).
                try index.journal.reschedule(
                    folder: "f", paths: ["a", "b", "x"], error: DaemonError(.changing, "again"), retryAt: Date() + 3600)
                let now = try index.journal.claim(folder: "f", limit: 10)
                #expect(Dictionary(uniqueKeysWithValues: now.map { ($0.path, $0.moveFrom ?? "-") }) == ["a": "c", "c": "-"])
                #expect(now.first { $0.path == "a" }?.attempts == 0, "its tries counted afresh")
                let shown = try index.errors.list(folder: "f").first { $0.path == "a" }?.retryAt
                #expect(shown.map { $0 < Date() + 60 } == true, "a is shown as tried now, not in an hour: \(String(describing: shown))")
                try index.journal.release(folder: "f", paths: ["a", "c"])
                try index.journal.releaseHeld(folder: "f")
                #expect(try index.journal.retryNow(folder: "f", isIgnored: { _, _ in false }) == 2)
            case "restart": try IndexStore(path: tmp.path + "/index.sqlite").journal.resumeInterrupted()
            default:
                // Held, changed or not (a rerun alone would leave the wave); the move that came
                // meanwhile is dropped: `a` goes up as what it holds when the wave is approved.
                try index.journal.hold(folder: "f", paths: ["a", "b", "x"])
                #expect(try index.journal.heldCount(folder: "f") == 3)
                #expect(try index.journal.claim(folder: "f", limit: 10).map(\.path) == ["c"])
                try index.journal.release(folder: "f", paths: ["c"])
                try index.journal.releaseHeld(folder: "f")
            }
            let claimed = try index.journal.claim(folder: "f", limit: 10)
            #expect(
                Dictionary(uniqueKeysWithValues: claimed.map { ($0.path, $0.moveFrom ?? "-") })
                    == ["a": end == "hold" ? "-" : "c", "b": "x", "c": "-", "x": "-"],
                "\(end)")
        }
    }

    /// A committed move: local records take their new names; the old live base
    /// records become tombstones (the mover writes the new ones, `MoveRecords`).
    @Test func aCommittedMoveRekeysLocalRecordsAndRetiresOldBases() throws {
        let (index, tmp) = try Self.store()
        defer { tmp.remove() }
        var setup = IndexUpdate()
        for path in ["d", "d/x", "d/sub/y", "dx"] {
            setup.bases.append(BaseRecord(path: path, kind: .file, rev: 3, contentHash: "h-" + path, deleted: false))
            setup.locals.append(LocalRecord(
                path: path, kind: .file, inode: 7, size: 1, mtimeNs: 1, ctimeNs: 1, mode: 0o644, contentHash: "h-" + path,
                chunks: [], symlinkTarget: nil))
        }
        try index.records.apply(folder: "f", setup)
        var move = IndexUpdate()
        move.moves.append((from: "d", to: "é/e"))
        try index.records.apply(folder: "f", move)
        #expect(try index.base.live(folder: "f", under: "é/e").isEmpty)
        #expect(try index.base.live(folder: "f", under: "d").isEmpty)
        #expect(try index.base.record(folder: "f", path: "d/x")?.rev == 3, "a tombstone at the rev it had")
        #expect(try index.files.record(folder: "f", path: "d/x") == nil)
        #expect(try index.base.record(folder: "f", path: "dx")?.contentHash == "h-dx", "a sibling with the same prefix stays")
        #expect(try index.files.record(folder: "f", path: "é/e/sub/y")?.contentHash == "h-d/sub/y")
    }
}
