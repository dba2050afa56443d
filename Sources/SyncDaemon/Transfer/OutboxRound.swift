import Foundation
import Logging
import SyncClient
import SyncCore

/// One round over a folder's commit outbox, before the queue prepares anything new: each
/// commit sent again under its own id and its answer recorded (see `OutboxReplayer`).
struct OutboxRound: Sendable {
    let folder: String
    let index: IndexStore
    let replayer: OutboxReplayer
    let logger: Logger
    /// After this many error answers to the same resent commit, it is given up (its paths
    /// are pushed afresh by their own ops).
    static let failureLimit = 10

    /// `sent`: false while a commit cannot be sent (the queue waits and tries again);
    /// `offline`: the last error on the way. `failures` counts error answers per commit.
    func run(
        failures: inout [String: Int], onConflicts: (@Sendable ([WireEntry]) async -> Void)?
    ) async -> (sent: Bool, offline: RemoteError?) {
        let outbox: OutboxStore.Contents
        do { outbox = try index.outbox.contents(folder: folder) } catch {
            logger.error("cannot read the commit outbox", metadata: ["folder": "\(folder)", "error": "\(error)"])
            return (false, nil)
        }
        guard dropUnreadable(outbox.unreadable) else { return (false, nil) }
        for commit in outbox.commits {
            switch await replayer.replay(commit) {
            case .later(let answer):
                // The server answered, and not as it should, time after time (a connection
                // that fails is waited out for as long as it takes): give up on the commit.
                guard answer.kind == .transient, answer.status != nil || answer.code == "mismatch" else { return (false, answer) }
                let count = (failures[commit.id] ?? 0) + 1
                failures[commit.id] = count
                guard count >= Self.failureLimit else { return (false, answer) }
                logger.error(
                    "giving up on resending a commit the server keeps refusing; its paths are pushed afresh",
                    metadata: ["folder": "\(folder)", "commit": "\(commit.id)", "error": "\(answer)"])
                do { try index.outbox.drop(folder: folder, ids: [commit.id]) } catch { return (false, answer) }
                failures[commit.id] = nil
            case .answered(let update, let conflicts):
                let outdated: Set<String>
                do {
                    outdated = try index.records.applyResent(folder: folder, update)
                } catch {
                    logger.error("cannot record a resent commit", metadata: ["folder": "\(folder)", "error": "\(error)"])
                    return (false, nil)
                }
                // A download landed there since: looked at again (as `JournalStore.finish` does).
                // Not journaled (a full disk): the download's records stand, and agree with the disk.
                do {
                    if !outdated.isEmpty { _ = try index.journal.enqueue(folder: folder, requests: [JournalRequest(paths: outdated.sorted())]) }
                } catch {
                    logger.error(
                        "cannot journal paths a resent commit left to look at again",
                        metadata: ["folder": "\(folder)", "paths": "\(outdated.sorted())", "error": "\(error)"])
                }
                logger.info(
                    "recorded a commit sent before a restart or a lost reply",
                    metadata: ["folder": "\(folder)", "changes": "\(commit.changes.count)", "recorded": "\(update.bases.count)"])
                if !conflicts.isEmpty, let onConflicts { await onConflicts(conflicts) }
            }
        }
        return (true, nil)
    }

    /// A row no release can read blocks nothing: set aside (logged); its paths' ops push
    /// them afresh (a conflict of identical content is adopted).
    private func dropUnreadable(_ rows: [(id: String, error: DaemonError)]) -> Bool {
        guard !rows.isEmpty else { return true }
        for row in rows {
            logger.error(
                "dropping an unreadable commit outbox row",
                metadata: ["folder": "\(folder)", "commit": "\(row.id)", "error": "\(row.error)"])
        }
        do { try index.outbox.drop(folder: folder, ids: rows.map(\.id)) } catch {
            logger.error("cannot drop it", metadata: ["folder": "\(folder)", "error": "\(error)"])
            return false
        }
        return true
    }
}
