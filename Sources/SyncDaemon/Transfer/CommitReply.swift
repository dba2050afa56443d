import SyncClient
import SyncCore

/// Reading the server's answer to a commit (a fresh push and a resent outbox commit alike).
enum CommitReply {
    /// One result per change, in order (a path may appear twice in a commit: each result
    /// belongs to its own change, never to the first of that path).
    static func matches(_ response: CommitResponse, _ changes: [CommitChange]) -> Bool {
        response.results.count == changes.count && zip(changes, response.results).allSatisfy { $0.path == $1.path }
    }

    /// A conflict whose current entry is exactly what was sent (e.g. our own earlier commit
    /// of it landed): not a conflict, its revision is adopted.
    static func server(holds current: WireEntry, as change: CommitChange) -> Bool {
        current.deleted == change.deleted && current.kind == change.kind
            && (change.deleted || current.contentHash == change.contentHash)
    }
}

extension CommitChange {
    /// The base a change becomes once the server committed it at `rev`.
    func baseRecord(rev: Int64) -> BaseRecord {
        BaseRecord(
            path: path, kind: kind, rev: rev, contentHash: contentHash, deleted: deleted,
            mode: BaseRecord.mode(kind: kind, mode: mode, deleted: deleted))
    }
}
