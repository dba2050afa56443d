import Foundation
import Inotify
import SyncControl

/// The folder's state and its folder-wide errors for `syncctl status`, from its problems
/// and facts: a pure function, tested alone for every state.
struct FolderStatusBuilder {
    var folder: String
    var problems: FolderProblems
    var facts: FolderStatusFacts

    /// The first that applies: paused; error (root trouble, journal problem); waiting for
    /// approval; starting or scanning; error (the server's disk is full); offline; syncing
    /// (anything still to do); error (remote entries kept for a retry); idle.
    var state: FolderState {
        if facts.paused { return .paused }
        if problems.rootTrouble != nil || problems.journalProblem != nil || facts.remote.feedError?.denied == true { return .error }
        if facts.held > 0 { return .waitingForApproval }
        switch facts.phase {
        case .starting: return .starting
        case .scanning: return .scanning
        case .running: break
        }
        let remote = facts.remote
        // The server answered: it is not unreachable, its disk is full.
        if let offline = facts.offline, offline.isServerStorageFull, facts.pending > 0 { return .error }
        if remote.feedError != nil || (facts.offline != nil && facts.pending > 0) { return .offline }
        if facts.pending > 0 || facts.busy || remote.pendingDownloads > 0 || remote.catchingUp { return .syncing }
        // Remote entries kept for a retry are still to come: not synced (their errors say why).
        return remote.retries > 0 ? .error : .idle
    }

    /// The folder's own errors, most important first, then `pathErrors` (the index's, per
    /// path), names and the ignore file.
    func errors(pathErrors: [PathErrorStatus]) -> [PathErrorStatus] {
        let state = state
        var first: [PathErrorStatus] = []
        func folderWide(_ code: DaemonError.Code, _ message: String, retryAt: Date? = nil) {
            first.append(PathErrorStatus(path: "", message: message, retryAt: retryAt.map(Self.iso), code: code.rawValue))
        }
        if let offline = facts.offline, offline.isServerStorageFull, state == .error {
            folderWide(.serverStorageFull, "the server's disk is full: \(facts.pending) changes wait and are retried (\(offline))")
        } else if let feedError = facts.remote.feedError, feedError.denied {
            folderWide(feedError.code, feedError.message, retryAt: feedError.retryAt)
        } else if let feedError = facts.remote.feedError, state == .offline {
            folderWide(.serverUnreachable, "server unreachable: \(feedError.message)", retryAt: feedError.retryAt)
        } else if let offline = facts.offline, state == .offline {
            folderWide(.serverUnreachable, "server unreachable: \(offline)")
        }
        if state == .waitingForApproval {
            folderWide(.deletesHeld, "\(facts.held) deletes wait for approval: run `syncctl approve-deletes \(folder)`, or `syncctl reject-deletes \(folder)` to bring the files back (`syncctl deletes \(folder)` lists them)")
        }
        if let watchError = problems.watchError { folderWide(.watch, watchMessage(watchError)) }
        if let rootTrouble = problems.rootTrouble { folderWide(.rootUnavailable, rootTrouble) }
        if let journalProblem = problems.journalProblem { folderWide(.notRecorded, journalProblem) }
        var errors = first + pathErrors
        for message in problems.nameProblems.values.sorted() {
            errors.append(PathErrorStatus(path: "", message: message, retryAt: nil, code: DaemonError.Code.invalidName.rawValue))
        }
        for (name, message) in problems.undecodableNames.sorted(by: { $0.key < $1.key }) {
            errors.append(PathErrorStatus(path: name, message: message, retryAt: nil, code: DaemonError.Code.invalidName.rawValue))
        }
        if let problem = problems.ignoreFileProblem {
            errors.append(
                PathErrorStatus(path: IgnoreRules.fileName, message: problem, retryAt: nil, code: DaemonError.Code.ignoreFile.rawValue))
        }
        return errors
    }

    private func watchMessage(_ error: WatchError) -> String {
        guard error.isOutOfWatches else { return error.description }
        return "\(error.description); this folder needs \(problems.directoriesSeen) watches (one per directory), "
            + "plus what other programs of this user hold"
    }

    static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
