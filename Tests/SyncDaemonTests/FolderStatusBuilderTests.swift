import Foundation
@testable import Inotify
import SyncClient
import SyncControl
import Testing

@testable import SyncDaemon

/// A folder's state in `syncctl status`, decided from its problems and facts alone: one
/// case for each state of the contract (DESIGN.md §2), and the errors shown with it.
struct FolderStatusBuilderTests {
    func build(_ problems: FolderProblems = FolderProblems(), facts: FolderStatusFacts = FolderStatusFacts())
        -> FolderStatusBuilder
    {
        FolderStatusBuilder(folder: "docs", problems: problems, facts: facts)
    }

    let unreachable = RemoteError(kind: .transient, code: "connection", message: "connection refused")
    let serverFull = RemoteError(kind: .transient, status: 507, code: "storage_full", message: "no space")

    @Test func startingAndScanning() {
        #expect(build(facts: .init(phase: .starting)).state == .starting)
        #expect(build(facts: .init(phase: .scanning, pending: 3)).state == .scanning)
    }

    @Test func idleWhenNothingIsLeftToDo() {
        let status = build()
        #expect(status.state == .idle)
        #expect(status.errors(pathErrors: []).isEmpty)
    }

    @Test func syncingWhileAnythingIsLeftToDo() {
        #expect(build(facts: .init(pending: 1)).state == .syncing)
        #expect(build(facts: .init(busy: true)).state == .syncing)
        #expect(build(facts: .init(remote: .init(pendingDownloads: 2))).state == .syncing)
        #expect(build(facts: .init(remote: .init(catchingUp: true))).state == .syncing)
    }

    @Test func pausedComesFirst() {
        var problems = FolderProblems()
        problems.rootProblem = "folder root /x is missing"
        #expect(build(problems, facts: .init(paused: true, held: 3)).state == .paused)
    }

    /// A folder the server refuses this device is an error that says what to do, not "offline".
    @Test func aFolderNotGrantedIsAnErrorNotOffline() {
        let retryAt = Date(timeIntervalSince1970: 2_000_000)
        let denied = FeedProblem(message: "run `sync-server folder grant f --device d`", retryAt: retryAt, denied: true)
        let status = build(facts: .init(remote: .init(feedError: denied)))
        #expect(status.state == .error)
        #expect(
            status.errors(pathErrors: []) == [
                PathErrorStatus(
                    path: "", message: denied.message, retryAt: FolderStatusBuilder.iso(retryAt), code: "not_granted")
            ])
    }

    @Test func offlineWhenTheFeedOrAPushCannotReachTheServer() {
        let retryAt = Date(timeIntervalSince1970: 1_000_000)
        let feedDown = build(facts: .init(remote: .init(feedError: FeedProblem(message: "connection refused", retryAt: retryAt))))
        #expect(feedDown.state == .offline)
        #expect(
            feedDown.errors(pathErrors: []) == [
                PathErrorStatus(
                    path: "", message: "server unreachable: connection refused", retryAt: FolderStatusBuilder.iso(retryAt),
                    code: "server_unreachable")
            ])
        let pushDown = build(facts: .init(pending: 2, offline: unreachable))
        #expect(pushDown.state == .offline)
        #expect(pushDown.errors(pathErrors: []).first?.message == "server unreachable: \(unreachable)")
        // A failed push with nothing left to push is not offline.
        #expect(build(facts: .init(offline: unreachable)).state == .idle)
    }

    @Test func waitingForApprovalSaysHowToApprove() {
        let status = build(facts: .init(held: 7))
        #expect(status.state == .waitingForApproval)
        #expect(
            status.errors(pathErrors: []).first?.message
                == "7 deletes wait for approval: run `syncctl approve-deletes docs`, or `syncctl reject-deletes docs` to bring the files back (`syncctl deletes docs` lists them)")
    }

    @Test func errorForTheRootTheJournalAFullServerOrEntriesKeptForARetry() {
        var root = FolderProblems()
        root.rootGone = RootTrouble(kind: .missing, message: "folder root /x is missing")
        root.rootProblem = "scan failed"
        #expect(build(root, facts: .init(held: 2)).state == .error)
        #expect(build(root).errors(pathErrors: []).map(\.message) == ["folder root /x is missing"])
        var journal = FolderProblems()
        journal.journalProblem = "cannot record local changes: disk full"
        #expect(build(journal, facts: .init(pending: 1)).state == .error)
        let full = build(facts: .init(pending: 4, offline: serverFull))
        #expect(full.state == .error)
        #expect(full.errors(pathErrors: []).first?.message == "the server's disk is full: 4 changes wait and are retried (\(serverFull))")
        #expect(build(facts: .init(remote: .init(retries: 1))).state == .error)
    }

    @Test func errorsComeFolderWideFirstThenPathsNamesAndTheIgnoreFile() {
        var problems = FolderProblems()
        problems.watchError = WatchError(path: "/x/d", errno: 28, maxUserWatches: 100)
        problems.directoriesSeen = 120
        problems.journalProblem = "cannot record local changes"
        problems.nameProblems = ["b": "b: taken", "a": "a: taken"]
        _ = problems.reportUndecodable(["bad\\xff"])
        problems.ignoreFileProblem = "cannot read .syncignore"
        let errors = build(problems).errors(pathErrors: [PathErrorStatus(path: "p", message: "permission denied", retryAt: nil)])
        #expect(errors.map(\.path) == ["", "", "p", "", "", "bad\\xff", ".syncignore"])
        #expect(errors[0].message.contains("this folder needs 120 watches"))
        #expect(errors[1].message == "cannot record local changes")
        #expect(errors[3].message == "a: taken" && errors[4].message == "b: taken")
    }

    @Test func aSubtreeScanReplacesOnlyTheUndecodableNamesBelowIt() {
        var problems = FolderProblems()
        #expect(problems.reportUndecodable(["a\\xff", "d/b\\xff"]) == ["a\\xff", "d/b\\xff"])
        #expect(problems.reportUndecodable(["d/c\\xff"], below: "d") == ["d/c\\xff"])
        #expect(problems.undecodableNames.keys.sorted() == ["a\\xff", "d/c\\xff"])
    }
}
