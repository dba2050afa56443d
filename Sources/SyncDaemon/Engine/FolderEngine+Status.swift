import Foundation
import Inotify
import SyncControl

extension FolderEngine {
    public func status() async throws -> FolderStatus {
        let pending = try index.journal.pendingCount(folder: id) + journalBuffer.paths + settleMachine.unjournaled
        let stored = try index.folders.state(folder: id)
        var errors = try index.errors.list(folder: id).map {
            PathErrorStatus(path: $0.path, message: $0.message, retryAt: $0.retryAt.map(Self.iso))
        }
        for message in nameProblems.values.sorted() { errors.append(PathErrorStatus(path: "", message: message, retryAt: nil)) }
        for (name, message) in undecodableNames.sorted(by: { $0.key < $1.key }) {
            errors.append(PathErrorStatus(path: name, message: message, retryAt: nil))
        }
        if let journalProblem { errors.insert(PathErrorStatus(path: "", message: journalProblem, retryAt: nil), at: 0) }
        if let ignoreFileProblem { errors.append(PathErrorStatus(path: IgnoreRules.fileName, message: ignoreFileProblem, retryAt: nil)) }
        if let rootTrouble { errors.insert(PathErrorStatus(path: "", message: rootTrouble, retryAt: nil), at: 0) }
        if let watchError { errors.insert(PathErrorStatus(path: "", message: watchMessage(watchError), retryAt: nil), at: 0) }
        let offline = await queue.offlineError
        let paused = await queue.paused
        let busy = await queue.isBusy
        let held = try index.journal.heldCount(folder: id) + remoteDeletesHeld
        let state: FolderState
        if paused {
            state = .paused
        } else if rootTrouble != nil || journalProblem != nil {
            state = .error
        } else if held > 0 {
            state = .waitingForApproval
            errors.insert(
                PathErrorStatus(
                    path: "", message: "\(held) deletes wait for approval: run `syncctl approve-deletes \(id)`", retryAt: nil),
                at: 0)
        } else {
            switch phase {
            case .starting: state = .starting
            case .scanning: state = .scanning
            case .running:
                if let offline, offline.isServerStorageFull, pending > 0 {
                    // The server answered: it is not unreachable, its disk is full.
                    state = .error
                } else if feedError != nil || (offline != nil && pending > 0) {
                    state = .offline
                } else {
                    // Remote entries kept for a retry are still to come: not idle (their
                    // errors say why), and not "synced" either.
                    state = pending > 0 || busy || pendingDownloads > 0 || feedCatchingUp ? .syncing
                        : remoteRetries > 0 ? .error : .idle
                }
            }
        }
        if let offline, offline.isServerStorageFull, state == .error {
            errors.insert(
                PathErrorStatus(
                    path: "", message: "the server's disk is full: \(pending) changes wait and are retried (\(offline))",
                    retryAt: nil),
                at: 0)
        } else if let feedError, state == .offline {
            errors.insert(PathErrorStatus(path: "", message: "server unreachable: \(feedError.message)", retryAt: Self.iso(feedError.retryAt)), at: 0)
        } else if let offline, state == .offline {
            errors.insert(PathErrorStatus(path: "", message: "server unreachable: \(offline)", retryAt: nil), at: 0)
        }
        let transfers = await progress.snapshot().map {
            Transfer(path: $0.path, direction: $0.direction, bytesDone: $0.done, bytesTotal: $0.total)
        }
        return FolderStatus(
            id: id, path: root, state: state, pendingUploads: pending, pendingDownloads: pendingDownloads + remoteRetries,
            transferring: transfers,
            conflicts: try index.conflicts.count(folder: id), errors: errors,
            lastSyncedAt: stored.lastSyncedAt.map(Self.iso), remoteCursor: stored.remoteCursor,
            watchedDirectories: watchedDirectories)
    }

    private func watchMessage(_ error: WatchError) -> String {
        guard error.isOutOfWatches else { return error.description }
        return "\(error.description); this folder needs \(directoriesSeen) watches (one per directory), "
            + "plus what other programs of this user hold"
    }

    public func conflicts() throws -> [ConflictInfo] {
        try index.conflicts.list(folder: id).map {
            ConflictInfo(folder: id, path: $0.path, remoteRev: $0.remoteRev, detectedAt: Self.iso($0.detectedAt))
        }
    }

    static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
