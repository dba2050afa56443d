import Foundation
import GRDB
import SyncClient
import SyncCore

/// Everything one push batch decided, for the queue to record and announce.
struct PushBatchResult: Sendable {
    /// Finished paths and what their waiters are told.
    var outcomes: [String: PushOutcome] = [:]
    var update = IndexUpdate()
    /// Changed while being read: try again shortly.
    var unstable: [String] = []
    /// The server could not be reached (or answered 5xx): retry with backoff.
    var transient: [String] = []
    var transientError: RemoteError?
    /// Permanent per-path failures.
    var failed: [String: String] = [:]
    /// The server has a version our base did not know: the current entries, for the engine to plan against.
    var conflicts: [WireEntry] = []
    var bytesSent: Int64 = 0
    /// Deletes that wait for `syncctl approve-deletes`.
    var held: [String] = []
    /// Not attempted (they wait for the moves of this batch): back to the journal, due now.
    var deferred: [String] = []
    /// Moves the server cannot make: pushed as plain changes next.
    var forgetMove: Set<String> = []
    /// Paths to journal after this batch (entries a moved directory no longer has).
    var followUps: [String] = []
}

extension PushBatchResult {
    /// Ops whose change another op sent (`follower → sender`) end as the sender did;
    /// one whose change nobody sends had nothing to do.
    mutating func inherit(_ followers: [String: String]) {
        for (follower, sender) in followers {
            if let outcome = outcomes[sender] {
                outcomes[follower] = outcome
            } else if let message = failed[sender] {
                failed[follower] = message
            } else if transient.contains(sender) {
                transient.append(follower)
            } else if unstable.contains(sender) {
                unstable.append(follower)
            } else if held.contains(sender) {
                held.append(follower)
            } else {
                outcomes[follower] = .unchanged
            }
        }
    }
}

extension IndexStore {
    /// Local and base records of many paths in few queries.
    func records(folder: String, paths: [String]) throws -> (local: [String: LocalRecord], base: [String: BaseRecord]) {
        var locals: [String: LocalRecord] = [:]
        var bases: [String: BaseRecord] = [:]
        try pool.read { db in
            for slice in stride(from: 0, to: paths.count, by: 500).map({ paths[$0..<min($0 + 500, paths.count)] }) {
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ",")
                var arguments: [String] = [folder]
                arguments.append(contentsOf: slice)
                for row in try Row.fetchAll(
                    db, sql: "SELECT * FROM local_files WHERE folder_id = ? AND path IN (\(marks))",
                    arguments: .init(arguments))
                {
                    let r = Self.local(row)
                    locals[r.path] = r
                }
                for row in try Row.fetchAll(
                    db, sql: "SELECT * FROM base WHERE folder_id = ? AND path IN (\(marks))", arguments: .init(arguments))
                {
                    let b = Self.base(row)
                    bases[b.path] = b
                }
            }
        }
        return (locals, bases)
    }
}
