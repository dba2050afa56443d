import Foundation
import Logging
import SyncClient
import SyncCore

/// What sending an outbox commit again came to.
enum OutboxReplay: Sendable {
    /// The server's answer, as index writes (the outbox row dropped with them), and the
    /// server's current entries where it holds something else (to plan against).
    case answered(IndexUpdate, conflicts: [WireEntry])
    /// The server could not be reached: the row stays, for the next try.
    case later(RemoteError)
}

/// Sends the commits of the outbox again (see `OutboxStore`) under their own ids.
struct OutboxReplayer: Sendable {
    let folder: String
    let remote: RemoteClient
    let logger: Logger

    /// Sends an outbox commit again under its own id: the server answers with what it
    /// did the first time, or applies it now if it never got it. Every change the server
    /// holds as sent is recorded as the base (for a move, its entries come by the feed);
    /// a change it refused is handed back as the server's current entry.
    func replay(_ commit: OutboxCommit) async -> OutboxReplay {
        var update = IndexUpdate()
        update.settledCommits = [commit.id]
        let response: CommitResponse
        do {
            response = try await remote.commit(folder: folder, changes: commit.changes, commitId: commit.id)
        } catch {
            // Unreachable, or not allowed now (a credential being replaced): kept for later.
            guard error.kind == .permanent else { return .later(error) }
            // Refused whole, so nothing of it was applied: the paths' own ops push them afresh.
            logger.warning(
                "an unrecorded commit was refused when sent again; its paths are pushed afresh",
                metadata: ["folder": "\(folder)", "commit": "\(commit.id)", "error": "\(error)"])
            return .answered(update, conflicts: [])
        }
        guard CommitReply.matches(response,  commit.changes) else {
            // It may have been applied: kept, and sent again (the queue gives up on a commit
            // the server keeps answering wrongly, see `TransferQueue.replayOutbox`).
            return .later(RemoteError(kind: .transient, code: "mismatch", message: "the server's reply does not match the commit sent"))
        }
        var conflicts: [WireEntry] = []
        for (change, outcome) in zip(commit.changes, response.results) where change.moveFrom == nil {
            switch outcome.status {
            case .ok:
                update.bases.append(change.baseRecord(rev: outcome.rev))
            case .conflict:
                guard let current = outcome.current else { continue }
                if CommitReply.server(holds: current, as: change) {
                    update.bases.append(change.baseRecord(rev: current.rev))
                    update.preparedOver[change.path] = change.baseRev
                } else {
                    conflicts.append(current)
                }
            }
        }
        return .answered(update, conflicts: conflicts)
    }
}
