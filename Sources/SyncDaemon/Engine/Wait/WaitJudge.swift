import SyncControl

/// Whether `syncctl wait` is over for one folder, from its status: a pure function, tested
/// alone for every state. The engine asks it again until it says `done` or time runs out.
struct WaitJudge: Sendable {
    enum Verdict: Sendable, Equatable {
        case done(WaitOutcome, String)
        /// Not yet, and why (said on timeout).
        case notYet(String)
    }

    /// Conflicts the folder had when the wait began: only new ones end it.
    var conflictsBefore: Int
    /// The server's revision of the folder when the wait began; nil when it could not be asked.
    var remoteTarget: Int64?

    /// `localSeen`: every watcher event queued when the wait began has been taken in.
    func judge(_ status: FolderStatus, localSeen: Bool) -> Verdict {
        let folder = status.id
        let permanent = status.errors.filter { $0.retryAt == nil }
        switch status.state {
        case .paused:
            return .done(.paused, "folder \(folder) is paused: `syncctl resume \(folder)` lets it sync")
        case .waitingForApproval:
            let held = status.errors.first { $0.code == DaemonError.Code.deletesHeld.rawValue }
            return .done(.waitingForApproval, held?.message ?? "deletes wait for `syncctl approve-deletes \(folder)`")
        case .error:
            if let first = permanent.first { return .done(.error, Self.describe(first)) }
            return .notYet("retrying: " + (status.errors.first.map(Self.describe) ?? "an error"))
        case .offline:
            return .notYet("offline: " + (status.errors.first.map(Self.describe) ?? "the server cannot be reached"))
        case .starting, .scanning:
            return .notYet("scanning the folder")
        case .syncing:
            return .notYet("\(status.pendingUploads) uploads and \(status.pendingDownloads) downloads to go")
        case .idle:
            break
        }
        if let first = permanent.first { return .done(.error, Self.describe(first)) }
        if let retried = status.errors.first { return .notYet("retrying: " + Self.describe(retried)) }
        guard localSeen else { return .notYet("taking in the last local changes") }
        if let target = remoteTarget, status.remoteCursor < target {
            return .notYet("applying the server's changes (at revision \(status.remoteCursor) of \(target))")
        }
        if status.conflicts > conflictsBefore {
            let new = status.conflicts - conflictsBefore
            return .done(.conflict, "\(new) new conflict cop\(new == 1 ? "y" : "ies"): see `syncctl conflicts`")
        }
        return .done(.synced, "in sync at revision \(status.remoteCursor)")
    }

    /// What the wait says when time is up, from the last `notYet`.
    static func timedOut(after seconds: Double, state: FolderState, reason: String) -> Verdict {
        let outcome: WaitOutcome = state == .offline ? .offline : .timeout
        return .done(outcome, "not in sync after \(seconds.formatted(.number.precision(.fractionLength(0...1)))) s: \(reason)")
    }

    private static func describe(_ error: PathErrorStatus) -> String {
        error.path.isEmpty ? error.message : "\(error.path): \(error.message)"
    }
}
