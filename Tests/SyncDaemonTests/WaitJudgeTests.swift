import SyncControl
import Testing

@testable import SyncDaemon

/// When `syncctl wait` is over for a folder, decided from its status alone.
struct WaitJudgeTests {
    func status(
        _ state: FolderState, up: Int = 0, down: Int = 0, conflicts: Int = 0, cursor: Int64 = 10, errors: [PathErrorStatus] = []
    ) -> FolderStatus {
        FolderStatus(
            id: "docs", path: "/f", state: state, pendingUploads: up, pendingDownloads: down, transferring: [],
            conflicts: conflicts, errors: errors, lastSyncedAt: nil, remoteCursor: cursor, watchedDirectories: 1)
    }

    let judge = WaitJudge(conflictsBefore: 1, remoteTarget: 10)

    @Test func syncedOnlyOnceTheWatcherWasReadAndTheCursorReachedTheServersHead() {
        #expect(judge.judge(status(.idle), localSeen: true) == .done(.synced, "in sync at revision 10"))
        #expect(judge.judge(status(.idle), localSeen: false) == .notYet("taking in the last local changes"))
        guard case .notYet(let why) = judge.judge(status(.idle, cursor: 7), localSeen: true) else {
            Issue.record("idle behind the server's head is not synced")
            return
        }
        #expect(why.contains("7 of 10"))
        // The server could not be asked: what the feed knows is all there is.
        #expect(WaitJudge(conflictsBefore: 0, remoteTarget: nil).judge(status(.idle, cursor: 3), localSeen: true).isSynced)
    }

    @Test func movingWorkIsNotYet() {
        for state in [FolderState.starting, .scanning, .syncing, .offline] {
            #expect(!judge.judge(status(state, up: 2, down: 1), localSeen: true).isDone, "\(state)")
        }
        #expect(judge.judge(status(.syncing, up: 2, down: 1), localSeen: true) == .notYet("2 uploads and 1 downloads to go"))
    }

    @Test func whatNeedsAPersonEndsTheWaitAtOnce() {
        #expect(judge.judge(status(.paused), localSeen: false).outcome == .paused)
        let held = PathErrorStatus(path: "", message: "3 deletes wait", retryAt: nil, code: "deletes_held")
        #expect(judge.judge(status(.waitingForApproval, errors: [held]), localSeen: false) == .done(.waitingForApproval, "3 deletes wait"))
        let denied = PathErrorStatus(path: "", message: "not granted", retryAt: nil, code: "not_granted")
        #expect(judge.judge(status(.error, errors: [denied]), localSeen: false) == .done(.error, "not granted"))
        // An idle folder with a path that failed for good is not in sync either.
        let unreadable = PathErrorStatus(path: "a.txt", message: "permission denied", retryAt: nil)
        #expect(judge.judge(status(.idle, errors: [unreadable]), localSeen: true) == .done(.error, "a.txt: permission denied"))
    }

    @Test func errorsRetriedByThemselvesAreWaitedFor() {
        let full = PathErrorStatus(path: "big.bin", message: "disk full", retryAt: "2026-11-24T10:00:00Z", code: "disk_full")
        #expect(judge.judge(status(.error, errors: [full]), localSeen: true) == .notYet("retrying: big.bin: disk full"))
        #expect(judge.judge(status(.idle, errors: [full]), localSeen: true) == .notYet("retrying: big.bin: disk full"))
    }

    @Test func aConflictMadeDuringTheWaitEndsItWithConflict() {
        #expect(judge.judge(status(.idle, conflicts: 1), localSeen: true).isSynced, "the conflict was there before")
        #expect(judge.judge(status(.idle, conflicts: 3), localSeen: true) == .done(.conflict, "2 new conflict copies: see `syncctl conflicts`"))
    }

    @Test func timingOutSaysOfflineWhenTheServerIsAway() {
        #expect(WaitJudge.timedOut(after: 1, state: .offline, reason: "offline: x").outcome == .offline)
        #expect(WaitJudge.timedOut(after: 2.5, state: .syncing, reason: "4 uploads") == .done(.timeout, "not in sync after 2.5 s: 4 uploads"))
    }

    @Test func exitStatuses() {
        func reply(_ outcomes: WaitOutcome...) -> WaitReply {
            WaitReply(folders: outcomes.map { FolderWaitResult(id: $0.rawValue, outcome: $0, message: "", remoteCursor: 0) })
        }
        #expect(reply(.synced, .synced).exitStatus == 0)
        #expect(reply(.synced, .timeout).exitStatus == 3)
        #expect(reply(.paused, .conflict, .synced).exitStatus == 1)
        #expect(reply().exitStatus == 0)
        let report = { (states: [FolderState], conflicts: Int) in
            StatusReport(
                daemon: .init(version: "0", pid: 1, uptimeS: 0),
                folders: states.map { self.status($0, conflicts: conflicts) })
        }
        #expect(report([.idle, .syncing], 0).exitStatus == 0)
        #expect(report([.idle, .offline], 0).exitStatus == 1)
        #expect(report([.idle, .waitingForApproval], 0).exitStatus == 3)
        #expect(report([.paused], 0).exitStatus == 3)
        #expect(report([.offline, .error], 0).exitStatus == 1)
        #expect(report([.idle], 2).exitStatus == 1)
    }
}

extension WaitJudge.Verdict {
    var isDone: Bool { if case .done = self { true } else { false } }
    var isSynced: Bool { outcome == .synced }
    var outcome: WaitOutcome? { if case .done(let outcome, _) = self { outcome } else { nil } }
}
