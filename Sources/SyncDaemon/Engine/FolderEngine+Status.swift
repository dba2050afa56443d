import Foundation
import SyncControl

extension FolderEngine {
    /// `syncctl status`: the facts and problems gathered from the parts, then `FolderStatusBuilder`.
    public func status() async throws -> FolderStatus {
        var facts = FolderStatusFacts()
        facts.offline = await queue.offlineError
        facts.paused = await queue.paused
        facts.busy = await queue.isBusy
        facts.remote = await feed.status
        let (phase, scanProblems) = await scanner.state
        facts.phase = phase
        var problems = scanProblems
        problems.watchError = watch.error
        problems.ignoreFileProblem = ignore.problem
        let transfers = await progress.snapshot().map {
            Transfer(path: $0.path, direction: $0.direction, bytesDone: $0.done, bytesTotal: $0.total)
        }
        facts.pending = try index.journal.pendingCount(folder: id) + journal.pendingPaths + settle.unjournaled
        facts.held = try index.journal.heldCount(folder: id)
        let stored = try index.folders.state(folder: id)
        let pathErrors = try index.errors.list(folder: id).map {
            PathErrorStatus(
                path: $0.path, message: $0.message, retryAt: $0.retryAt.map(FolderStatusBuilder.iso), code: $0.code, cause: $0.cause)
        }
        let builder = FolderStatusBuilder(folder: id, problems: problems, facts: facts)
        var status = FolderStatus(
            id: id, path: root, state: builder.state, pendingUploads: facts.pending,
            pendingDownloads: facts.remote.pendingDownloads + facts.remote.retries, transferring: transfers,
            conflicts: try index.conflicts.count(folder: id), errors: builder.errors(pathErrors: pathErrors),
            lastSyncedAt: stored.lastSyncedAt.map(FolderStatusBuilder.iso), remoteCursor: stored.remoteCursor,
            watchedDirectories: watch.directories)
        (status.done, status.recent) = progress.tally.snapshot
        return status
    }

    public func conflicts() throws -> [ConflictInfo] {
        try index.conflicts.list(folder: id).map {
            ConflictInfo(folder: id, path: $0.path, remoteRev: $0.remoteRev, detectedAt: FolderStatusBuilder.iso($0.detectedAt))
        }
    }
}
