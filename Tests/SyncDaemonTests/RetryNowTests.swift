import Foundation
import Glibc
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// `syncctl retry` on a real index: what waits out a backoff is due now, a path whose push
/// failed for good is pushed once more, and a remote change this device refused is not
/// made to look settled.
struct RetryNowTests {
    static func entry(_ path: String, rev: Int64) -> WireEntry {
        WireEntry(path: path, kind: .file, size: 0, mtimeNs: 0, mode: 0o644, chunks: [], contentHash: "h\(rev)", deleted: false, rev: rev)
    }

    @Test func backoffsAreDueNowAndFailedPushesRunAgain() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["offline", "denied", "fresh"])
        let ops = try index.journal.claim(folder: "f", limit: 10)
        #expect(ops.count == 3)
        // One push waits out a long backoff, one failed for good, one is done.
        try index.journal.reschedule(
            folder: "f", paths: ["offline"], error: DaemonError(.serverUnreachable, "connection refused"),
            retryAt: Date().addingTimeInterval(600))
        try index.journal.fail(folder: "f", paths: ["denied"], error: .io("open", "denied", EACCES))
        _ = try index.journal.finish(folder: "f", done: ["fresh"], update: .empty)
        // A remote change refused (never retried: the feed moved past it), one cut short by a
        // stop (the next start settles it), one kept for a retry a minute away.
        try index.errors.show(
            folder: "f", path: "bad..name", error: DaemonError(.invalidPath, "refused a remote entry"), origin: .remote)
        try index.errors.show(folder: "f", path: "trashed", error: DaemonError(.interrupted, "cut short"), origin: .remote)
        try index.retries.hold(folder: "f", [(Self.entry("blocked", rev: 3), DaemonError(.diskFull, "disk full"))], delay: { _ in 60 })
        #expect(try index.journal.claim(folder: "f", limit: 10).isEmpty, "nothing due before the retry")
        #expect(try index.retries.due(folder: "f").isEmpty)

        let now = Date()
        #expect(try index.journal.retryNow(folder: "f", now: now, isIgnored: { _, _ in false }) == 2)
        #expect(try index.retries.retryNow(folder: "f", now: now) == 1)

        let claimed = try index.journal.claim(folder: "f", limit: 10, now: now)
        #expect(Set(claimed.map(\.path)) == ["offline", "denied"], "a refused remote change or a cut delete is no push")
        #expect(claimed.allSatisfy { $0.attempts == 0 }, "tries start over: \(claimed)")
        #expect(try index.retries.due(folder: "f", now: now).map(\.path) == ["blocked"])
        let shown = Dictionary(uniqueKeysWithValues: try index.errors.list(folder: "f").map { ($0.path, $0) })
        #expect(Set(shown.keys) == ["offline", "denied", "bad..name", "trashed", "blocked"], "errors stay until an outcome")
        for path in ["offline", "denied", "blocked"] {
            #expect(shown[path]?.retryAt.map { abs($0.timeIntervalSince(now)) < 0.01 } == true, "\(path): \(String(describing: shown[path]))")
        }
        #expect(shown["bad..name"]?.retryAt == nil && shown["trashed"]?.retryAt == nil)
    }

    /// `syncctl retry --path d`: d and what is below it, not `d2` beside it, nor anything else;
    /// the shown retry time changes only for what is due now.
    @Test func aRetryOfOnePathTakesItsSubtreeAlone() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        let later = Date().addingTimeInterval(600)
        let paths = ["d", "d/x", "d2", "e"]
        try index.journal.enqueue(folder: "f", paths: paths)
        _ = try index.journal.claim(folder: "f", limit: 10)
        try index.journal.reschedule(folder: "f", paths: ["d/x", "d2"], error: DaemonError(.serverUnreachable, "away"), retryAt: later)
        try index.journal.fail(folder: "f", paths: ["d", "e"], error: .io("open", "denied", EACCES))
        try index.retries.hold(
            folder: "f", [(Self.entry("d/r", rev: 3), DaemonError(.diskFull, "full")), (Self.entry("d2/r", rev: 4), DaemonError(.diskFull, "full"))],
            delay: { _ in 600 })

        let now = Date()
        #expect(try index.journal.retryNow(folder: "f", under: "d", now: now, isIgnored: { _, _ in false }) == 2)
        #expect(try index.retries.retryNow(folder: "f", under: "d", now: now) == 1)
        #expect(Set(try index.journal.claim(folder: "f", limit: 10, now: now).map(\.path)) == ["d", "d/x"])
        #expect(try index.retries.due(folder: "f", now: now).map(\.path) == ["d/r"])
        let shown = Dictionary(uniqueKeysWithValues: try index.errors.list(folder: "f").map { ($0.path, $0) })
        #expect(Set(shown.keys) == ["d", "d/x", "d/r", "d2", "d2/r", "e"])
        for path in ["d", "d/x", "d/r"] {
            #expect(shown[path]?.retryAt.map { abs($0.timeIntervalSince(now)) < 0.01 } == true, "\(path) is shown as retried now")
        }
        #expect(shown["e"]?.retryAt == nil, "e still failed for good")
        for path in ["d2", "d2/r"] {
            #expect(shown[path]?.retryAt.map { $0.timeIntervalSince(now) > 500 } == true, "\(path) keeps its later retry")
        }
    }

    /// A retry of a move's old place makes the move due too: its departure alone would go up
    /// first, as a delete, and the move as new content.
    @Test func aRetryOfAMovesOldPlaceTakesTheMoveAlong() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["y/a", "x/a", "x2/b"], moves: ["y/a": "x/a"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        try index.journal.reschedule(
            folder: "f", paths: ["y/a", "x/a", "x2/b"], error: DaemonError(.serverUnreachable, "away"), retryAt: Date() + 600)
        let now = Date()
        #expect(try index.journal.retryNow(folder: "f", under: "x", now: now, isIgnored: { _, _ in false }) == 2)
        let claimed = try index.journal.claim(folder: "f", limit: 10, now: now)
        #expect(Dictionary(uniqueKeysWithValues: claimed.map { ($0.path, $0.moveFrom ?? "-") }) == ["y/a": "x/a", "x/a": "-"])
    }

    /// A failed path's push that is running when the retry comes runs once more after it;
    /// a retry with nothing waiting does nothing.
    @Test func aRetryOfARunningPathMarksItDirtyAndAnEmptyRetryDoesNothing() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        #expect(try index.journal.retryNow(folder: "f", isIgnored: { _, _ in false }) == 0)
        try index.journal.enqueue(folder: "f", paths: ["a"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        try index.journal.fail(folder: "f", paths: ["a"], error: .io("open", "a", EACCES))
        try index.journal.enqueue(folder: "f", paths: ["a"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        #expect(try index.journal.retryNow(folder: "f", isIgnored: { _, _ in false }) == 1)
        #expect(try index.journal.claim(folder: "f", limit: 10).isEmpty, "running: not claimed twice")
        let again = try index.journal.finish(folder: "f", done: ["a"], update: .empty)
        #expect(again == ["a"], "the retry asked while it ran makes it run once more")
    }
}

/// A running op's tries start over with a retry (`TransferQueue.triesStartOver` does the
/// same for the count the queue read at its claim).
struct RetryNowRunningTests {
    /// Failed five times, running when `retry --path a` comes: a fails again and its next
    /// claim counts one try, not six; b, outside the path, keeps its count.
    @Test func aRetryOfARunningOpStartsItsTriesOver() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["a", "b"])
        let failed = DaemonError(.serverUnreachable, "down")
        for _ in 0..<5 {
            #expect(try index.journal.claim(folder: "f", limit: 10).count == 2)
            try index.journal.reschedule(folder: "f", paths: ["a", "b"], error: failed, retryAt: Date(timeIntervalSinceNow: -1))
        }
        let running = try index.journal.claim(folder: "f", limit: 10)
        #expect(running.map(\.attempts) == [5, 5])
        _ = try index.journal.retryNow(folder: "f", under: "a", isIgnored: { _, _ in false })
        try index.journal.reschedule(folder: "f", paths: ["a", "b"], error: failed, retryAt: Date(timeIntervalSinceNow: -1))
        let next = Dictionary(uniqueKeysWithValues: try index.journal.claim(folder: "f", limit: 10).map { ($0.path, $0.attempts) })
        #expect(next == ["a": 1, "b": 6])
    }
}

/// What `retry` leaves alone among the pushes that failed for good.
struct RetryNowLeavesAloneTests {
    /// A path the ignore rules now skip is not pushed (its error goes), a held delete stays
    /// held, and the rules are asked with the path's kind as last synced.
    @Test func anIgnoredPathIsNotPushedAndAHeldDeleteStaysHeld() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var update = IndexUpdate()
        update.bases = [BaseRecord(path: "build", kind: .directory, rev: 1, contentHash: "d", deleted: false)]
        try index.records.apply(folder: "f", update)
        let paths = ["build", "video.mkv", "held.txt", "notes.txt"]
        try index.journal.enqueue(folder: "f", paths: paths)
        _ = try index.journal.claim(folder: "f", limit: 10)
        for path in paths { try index.journal.fail(folder: "f", paths: [path], error: .io("open", path, EACCES)) }
        try index.journal.enqueue(folder: "f", paths: ["held.txt"])
        try index.journal.hold(folder: "f", paths: ["held.txt"])
        var asked: [String: Bool] = [:]
        let count = try index.journal.retryNow(folder: "f") { path, wasDirectory in
            asked[path] = wasDirectory
            return path == "video.mkv" || (path == "build" && wasDirectory)
        }
        #expect(count == 1)
        #expect(asked == ["build": true, "video.mkv": false, "notes.txt": false], "a held path is not asked about: \(asked)")
        #expect(try index.journal.claim(folder: "f", limit: 10).map(\.path) == ["notes.txt"])
        let shown = try index.errors.list(folder: "f").map(\.path)
        #expect(shown == ["held.txt", "notes.txt"], "the ignored paths' errors are dropped")
        #expect(try index.journal.releaseHeld(folder: "f") == 1, "the held delete is still held")
    }
}

/// The server is back (the feed reached it): what waited for it is due now, nothing else.
struct ServerBackTests {
    @Test func onlyTheOpsThatWaitedForTheServerAreDue() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        try index.journal.enqueue(folder: "f", paths: ["offline", "bad-sector"])
        _ = try index.journal.claim(folder: "f", limit: 10)
        let later = Date().addingTimeInterval(600)
        try index.journal.reschedule(
            folder: "f", paths: ["offline"], error: DaemonError(.serverUnreachable, "connection refused"), retryAt: later)
        try index.journal.reschedule(folder: "f", paths: ["bad-sector"], error: .io("read", "bad-sector", EIO), retryAt: later)
        let now = Date()
        #expect(try index.journal.dueNow(folder: "f", failedWith: .serverUnreachable, now: now) == 1)
        let claimed = try index.journal.claim(folder: "f", limit: 10, now: now)
        #expect(claimed.map(\.path) == ["offline"])
        #expect(claimed.first?.attempts == 1, "its tries go on counting")
        let shown = Dictionary(uniqueKeysWithValues: try index.errors.list(folder: "f").map { ($0.path, $0.retryAt) })
        #expect(shown["offline"]??.timeIntervalSince(now).magnitude ?? 1 < 0.01)
        #expect(shown["bad-sector"]??.timeIntervalSince(later).magnitude ?? 1 < 0.01, "an I/O error waits out its backoff")
    }
}

/// The sleep a retry cuts short.
struct AlarmSleepTests {
    @Test func aRingEndsTheSleepAndATimeoutDoesNot() async throws {
        let alarm = Alarm()
        #expect(await alarm.sleep(seconds: 0.01) == false)
        let started = ContinuousClock.now
        async let rung = alarm.sleep(seconds: 600)
        try await Task.sleep(for: .milliseconds(50))
        alarm.ring()
        #expect(await rung == true)
        #expect(ContinuousClock.now - started < .seconds(60))
        // A ring with nobody asleep ends the next sleep at once.
        alarm.ring()
        #expect(await alarm.sleep(seconds: 600) == true)
    }
}
