import Foundation
import SyncClient
import SyncCore

extension Uploader {
    /// Largest number of changes in one commit request.
    static let commitLimit = 10_000

    func commit(_ changes: [String: [PreparedChange]], into result: inout PushBatchResult) async {
        var owners: [String: String] = [:]
        var flat: [PreparedChange] = []
        for (owner, list) in changes.sorted(by: { $0.key < $1.key }) {
            for prepared in list {
                owners[prepared.change.path] = owner
                flat.append(prepared)
            }
        }
        for start in stride(from: 0, to: flat.count, by: Self.commitLimit) {
            let slice = Array(flat[start..<min(start + Self.commitLimit, flat.count)])
            await commitSlice(slice, owners: owners, into: &result)
        }
        await progress.end(paths: changes.keys)
    }

    /// Retries of one commit after a transient failure, with the same commit id,
    /// before the paths go back to the journal (and are prepared afresh).
    static let commitRetryDelays: [Duration] = [.milliseconds(250), .seconds(1), .seconds(2), .seconds(4)]

    /// Commits `changes` under the commit id `commitId`. A transient failure (a lost
    /// reply among them: the server may have applied it) is retried with the same id,
    /// so the server answers with what it did instead of applying it again or the
    /// retry being planned against bases the commit already changed. The commit is in
    /// the outbox before it is sent: the caller puts `commitId` in the update that
    /// records the outcome (or on a permanent refusal); after a transient failure it
    /// stays there and is sent again before the next push (`TransferQueue.replayOutbox`).
    func commitOnce(_ changes: [CommitChange], commitId: String) async throws(RemoteError) -> CommitResponse {
        do {
            try index.outbox.put(folder: folder, OutboxCommit(id: commitId, changes: changes))
        } catch {
            throw RemoteError(kind: .transient, code: "index", message: "cannot record the commit before sending it: \(error)")
        }
        var attempt = 0
        while true {
            do {
                return try await remote.commit(folder: folder, changes: changes, commitId: commitId)
            } catch {
                guard error.kind == .transient, attempt < Self.commitRetryDelays.count, !Task.isCancelled else { throw error }
                logger.debug("commit failed; retrying with the same commit id", metadata: ["error": "\(error)"])
                do {
                    try await Task.sleep(for: Self.commitRetryDelays[attempt])
                } catch {
                    throw RemoteError(kind: .transient, code: "cancelled", message: "shutting down")
                }
                attempt += 1
            }
        }
    }

    private func commitSlice(_ slice: [PreparedChange], owners: [String: String], into result: inout PushBatchResult) async {
        let response: CommitResponse
        let commitId = UUID().uuidString
        do {
            response = try await commitOnce(slice.map(\.change), commitId: commitId)
        } catch {
            // Refused whole (nothing applied): nothing to send again.
            if error.kind == .permanent { result.update.settledCommits.append(commitId) }
            let paths = Set(slice.compactMap { owners[$0.change.path] })
            if error.code == "missing_chunks" {
                // The server had these chunks when asked and dropped them before the commit (its
                // garbage collection, or a crash's recovery): prepared afresh, they are uploaded again.
                let again = RemoteError(kind: .transient, status: error.status, code: error.code, message: error.message)
                markTransientOrFailed(again, paths: Array(paths), into: &result)
                return
            }
            if error.kind == .permanent && slice.count > 1 {
                // One bad change must not block the rest: commit them one by one.
                for prepared in slice { await commitSlice([prepared], owners: owners, into: &result) }
                return
            }
            markTransientOrFailed(error, paths: Array(paths), into: &result)
            return
        }
        CrashPoint.reached(.afterCommit, paths: slice.map(\.change.path))
        guard CommitReply.matches(response,  slice.map(\.change)) else {
            // It may have been applied: the commit stays in the outbox and is sent again.
            logger.error("commit reply does not match the request", metadata: ["folder": "\(folder)", "changes": "\(slice.count)"])
            let error = RemoteError(kind: .transient, code: "mismatch", message: "the server's reply does not match the commit sent")
            markTransientOrFailed(error, paths: Array(Set(slice.compactMap { owners[$0.change.path] })), into: &result)
            return
        }
        result.update.settledCommits.append(commitId)
        for (prepared, outcome) in zip(slice, response.results) {
            guard let owner = owners[outcome.path] else { continue }
            apply(outcome, prepared: prepared, owner: owner, into: &result)
        }
    }

    private func apply(_ outcome: CommitResult, prepared: PreparedChange, owner: String, into result: inout PushBatchResult) {
        let change = prepared.change
        switch outcome.status {
        case .ok:
            record(change, rev: outcome.rev, local: prepared.local, into: &result)
            // The server checked the base when it applied the change, not now: a reply lost and
            // retried for seconds may come after a download of a later revision landed here.
            if change.moveFrom == nil { result.update.notOverNewer.insert(change.path) }
            if change.kind == .file && !change.deleted {
                metrics.fileUploaded()
                progress.tally.uploaded(path: change.path, bytes: change.size)
            }
            if result.outcome(of: owner) == nil || change.path == owner {
                result.finish(owner, .committed(rev: outcome.rev))
            }
        case .conflict:
            let current = outcome.current
            // The server already holds exactly this (e.g. our earlier commit landed
            // just before a crash): not a conflict, just adopt its revision.
            // Both adoptions below hold only over the base the change was prepared against
            // (`IndexUpdate.preparedOver`).
            if let current, CommitReply.server(holds: current, as: change) {
                record(change, rev: current.rev, local: prepared.local, into: &result)
                if change.moveFrom == nil { result.update.preparedOver[change.path] = change.baseRev }
                if result.outcome(of: owner) == nil { result.finish(owner, .unchanged) }
                return
            }
            if change.deleted && current == nil {
                // Deleting something the server never had: nothing to do.
                result.update.removedLocals.append(change.path)
                result.update.preparedOver[change.path] = change.baseRev
                if result.outcome(of: owner) == nil { result.finish(owner, .unchanged) }
                return
            }
            if let current { result.conflicts.append(current) }
            result.finish(owner, .conflict(remoteRev: outcome.rev))
        }
    }

    private func record(_ change: CommitChange, rev: Int64, local: LocalRecord?, into result: inout PushBatchResult) {
        result.update.bases.append(change.baseRecord(rev: rev))
        if let local {
            result.update.locals.append(local)
        } else if change.deleted {
            result.update.removedLocals.append(change.path)
        }
        result.bytesSent += change.size
    }
}
