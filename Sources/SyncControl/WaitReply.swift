/// How `syncctl wait` ended for one folder.
public enum WaitOutcome: String, Codable, Sendable, Equatable {
    /// Every local change made before the wait is committed, every remote change the server
    /// had then is applied.
    case synced
    /// The deadline passed while changes were still moving.
    case timeout
    /// The deadline passed while the server could not be reached.
    case offline
    /// The folder is paused: nothing moves until `syncctl resume`.
    case paused
    /// A delete wave waits for `syncctl approve-deletes`.
    case waitingForApproval = "waiting_for_approval"
    /// Something will not sync without a person (an error that is not retried by itself).
    case error
    /// A conflict copy was made during the wait.
    case conflict

    /// The exit status of `syncctl wait` and `syncctl status` (docs/operations.md): 0 all
    /// fine, 1 an error or a conflict, 3 waiting (offline, paused, held, out of time).
    public var exitStatus: Int32 {
        switch self {
        case .synced: 0
        case .error, .conflict: 1
        case .timeout, .offline, .paused, .waitingForApproval: 3
        }
    }
}

/// One folder's answer to `POST /v1/wait`.
public struct FolderWaitResult: Codable, Sendable, Equatable {
    public var id: String
    public var outcome: WaitOutcome
    /// For a person: what happened, and what to do when it is not `synced`.
    public var message: String
    /// The folder's remote cursor when the wait ended.
    public var remoteCursor: Int64

    public init(id: String, outcome: WaitOutcome, message: String, remoteCursor: Int64) {
        self.id = id
        self.outcome = outcome
        self.message = message
        self.remoteCursor = remoteCursor
    }

    enum CodingKeys: String, CodingKey {
        case id, outcome, message
        case remoteCursor = "remote_cursor"
    }
}

/// Answer of `POST /v1/wait?folder=ID&timeout_ms=N`.
public struct WaitReply: Codable, Sendable, Equatable {
    public var folders: [FolderWaitResult]
    public init(folders: [FolderWaitResult]) { self.folders = folders }

    /// The worst folder's status (errors before waiting before synced).
    public var exitStatus: Int32 {
        folders.map(\.outcome.exitStatus).max { rank($0) < rank($1) } ?? 0
    }

    private func rank(_ status: Int32) -> Int { status == 1 ? 2 : status == 3 ? 1 : 0 }
}

extension StatusReport {
    /// The exit status of `syncctl status` (docs/operations.md, decision 0019): 1 when it
    /// shows an error (a folder in error, or offline: the brief's "an error shown") or an
    /// unresolved conflict, else 3 when a folder waits for a person (paused, deletes held),
    /// else 0.
    public var exitStatus: Int32 {
        if folders.contains(where: { $0.state == .error || $0.state == .offline || $0.conflicts > 0 }) { return 1 }
        let waiting: Set<FolderState> = [.paused, .waitingForApproval]
        if folders.contains(where: { waiting.contains($0.state) }) { return 3 }
        return 0
    }
}
