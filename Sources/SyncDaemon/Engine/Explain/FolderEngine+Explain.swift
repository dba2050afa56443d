import Foundation
import SyncControl

/// `syncctl explain PATH`: everything the folder knows about one path (see `PathExplainer`).
extension FolderEngine {
    func explain(_ path: String) async throws -> ExplainReply {
        let state = try await status().state
        var facts = PathExplainer.Facts(path: path, folder: id, folderState: state)
        facts.disk = folder.lstat(path)
        var isDirectory = false
        if case .found(let stat) = facts.disk { isDirectory = stat.kind == .directory }
        facts.ignored = ignore.rules.match(path, isDirectory: isDirectory)
        facts.local = try index.files.record(folder: id, path: path)
        facts.base = try index.base.record(folder: id, path: path)
        let rows = try index.rows(folder: id, path: path)
        facts.journal = rows.journal.map { ($0.state, $0.attempts, FolderStatusBuilder.iso($0.nextAttemptAt)) }
        facts.error = rows.error.map {
            PathErrorStatus(path: $0.path, message: $0.message, retryAt: $0.retryAt.map(FolderStatusBuilder.iso), code: $0.code, cause: $0.cause)
        }
        facts.remoteRetryRev = rows.remoteRetryRev
        facts.conflict = rows.conflict.map { ($0.remoteRev, FolderStatusBuilder.iso($0.detectedAt)) }
        facts.transfer = await progress.snapshot().first { $0.path == path }.map {
            Transfer(path: $0.path, direction: $0.direction, bytesDone: $0.done, bytesTotal: $0.total)
        }
        let (verdict, sentence) = PathExplainer.explain(facts)
        return ExplainReply(folder: id, path: path, verdict: verdict, sentence: sentence, details: Self.details(facts))
    }

    private static func details(_ facts: PathExplainer.Facts) -> PathDetails {
        var d = PathDetails()
        switch facts.disk {
        case .found(let stat):
            d.onDisk = stat.kind.rawValue
            d.size = stat.size
        case .missing: d.onDisk = "missing"
        case .unsupported: d.onDisk = "unsupported"
        case .failed: d.onDisk = "unreadable"
        }
        d.syncedRev = facts.base?.rev
        d.syncedDeleted = facts.base?.deleted
        d.journalState = facts.journal?.state
        d.attempts = facts.journal?.attempts
        d.nextAttemptAt = facts.journal?.nextAttemptAt
        d.error = facts.error
        d.remoteRetryRev = facts.remoteRetryRev
        d.conflictRemoteRev = facts.conflict?.remoteRev
        d.conflictDetectedAt = facts.conflict?.detectedAt
        d.ignoreRule = facts.ignored?.rule
        d.ignoreSource = facts.ignored.map { PathExplainer.key($0.source) }
        d.ignoreMatched = facts.ignored?.matched
        d.transfer = facts.transfer
        d.folderState = facts.folderState
        return d
    }
}
