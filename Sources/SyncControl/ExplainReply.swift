/// What `syncctl explain PATH` says of one path.
public enum PathVerdict: String, Codable, Sendable, Equatable {
    /// Not inside any synced folder.
    case outside
    /// Matched by an ignore rule (or the daemon's own files): not synced.
    case ignored
    /// Synced: this device and the server agree on it.
    case inSync = "in_sync"
    /// A local change waiting to be sent (or being sent).
    case pendingUpload = "pending_upload"
    /// A change from the server being applied.
    case downloading
    /// A change could not be sent or applied: retried, or waiting for a person.
    case failing
    /// A delete wave holds it until `syncctl approve-deletes`.
    case held
    /// A conflict copy: it holds this device's version of a path another device changed.
    case conflictCopy = "conflict_copy"
    /// The daemon has not seen it yet (a new file not picked up, or a name it cannot sync).
    case notSeen = "not_seen"
    /// Neither here nor on the server as far as this device knows.
    case unknown
}

/// Answer of `GET /v1/explain?path=P[&folder=F]`.
public struct ExplainReply: Codable, Sendable, Equatable {
    public var folder: String?
    /// Relative to the folder's root (as given when outside every folder).
    public var path: String
    public var verdict: PathVerdict
    /// For a person: everything below, in a sentence or two.
    public var sentence: String
    public var details: PathDetails

    public init(folder: String?, path: String, verdict: PathVerdict, sentence: String, details: PathDetails) {
        self.folder = folder
        self.path = path
        self.verdict = verdict
        self.sentence = sentence
        self.details = details
    }
}

/// The facts behind an explanation (every one optional: present when known).
public struct PathDetails: Codable, Sendable, Equatable {
    /// What is on disk: `file`, `directory`, `symlink`, `missing`, `unsupported`.
    public var onDisk: String?
    public var size: Int64?
    /// The revision both sides last agreed on, and whether it was a delete.
    public var syncedRev: Int64?
    public var syncedDeleted: Bool?
    /// The journal row: `pending`, `running` or `held`; attempts so far; next attempt.
    public var journalState: String?
    public var attempts: Int?
    public var nextAttemptAt: String?
    public var error: PathErrorStatus?
    /// A revision from the server kept for a retry.
    public var remoteRetryRev: Int64?
    /// A conflict copy: the remote revision it lost to, and when.
    public var conflictRemoteRev: Int64?
    public var conflictDetectedAt: String?
    /// The ignore rule, where it is written (`built-in`, `config`, `.syncignore:LINE`,
    /// `daemon`), and the path it matched (the path or a directory above it).
    public var ignoreRule: String?
    public var ignoreSource: String?
    public var ignoreMatched: String?
    public var transfer: Transfer?
    public var folderState: FolderState?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case size, error, transfer
        case onDisk = "on_disk"
        case syncedRev = "synced_rev"
        case syncedDeleted = "synced_deleted"
        case journalState = "journal_state"
        case attempts
        case nextAttemptAt = "next_attempt_at"
        case remoteRetryRev = "remote_retry_rev"
        case conflictRemoteRev = "conflict_remote_rev"
        case conflictDetectedAt = "conflict_detected_at"
        case ignoreRule = "ignore_rule"
        case ignoreSource = "ignore_source"
        case ignoreMatched = "ignore_matched"
        case folderState = "folder_state"
    }
}
