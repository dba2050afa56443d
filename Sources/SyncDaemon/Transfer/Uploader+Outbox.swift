import Foundation
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

extension Uploader {
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
        guard Self.reply(response, matches: commit.changes) else {
            // It may have been applied: kept, and sent again (the queue gives up on a commit
            // the server keeps answering wrongly, see `TransferQueue.replayOutbox`).
            return .later(RemoteError(kind: .transient, code: "mismatch", message: "the server's reply does not match the commit sent"))
        }
        var conflicts: [WireEntry] = []
        for (change, outcome) in zip(commit.changes, response.results) where change.moveFrom == nil {
            switch outcome.status {
            case .ok:
                update.bases.append(Self.base(change, rev: outcome.rev))
            case .conflict:
                guard let current = outcome.current else { continue }
                if Self.server(holds: current, as: change) {
                    update.bases.append(Self.base(change, rev: current.rev))
                } else {
                    conflicts.append(current)
                }
            }
        }
        return .answered(update, conflicts: conflicts)
    }

    /// One result per change, in order (a path may appear twice in a commit: each result
    /// belongs to its own change, never to the first of that path).
    static func reply(_ response: CommitResponse, matches changes: [CommitChange]) -> Bool {
        response.results.count == changes.count && zip(changes, response.results).allSatisfy { $0.path == $1.path }
    }

    /// A conflict whose current entry is exactly what was sent (e.g. our own earlier commit
    /// of it landed): not a conflict, its revision is adopted.
    static func server(holds current: WireEntry, as change: CommitChange) -> Bool {
        current.deleted == change.deleted && current.kind == change.kind
            && (change.deleted || current.contentHash == change.contentHash)
    }

    static func base(_ change: CommitChange, rev: Int64) -> BaseRecord {
        BaseRecord(
            path: change.path, kind: change.kind, rev: rev, contentHash: change.contentHash, deleted: change.deleted,
            mode: BaseRecord.mode(kind: change.kind, mode: change.mode, deleted: change.deleted))
    }
}
