/// What `syncctl status --json` prints: the public contract of DESIGN.md §2.
/// Fields may be added; none may be renamed.
public struct StatusReport: Codable, Sendable, Equatable {
    public struct Daemon: Codable, Sendable, Equatable {
        public var version: String
        public var pid: Int32
        public var uptimeS: Double
        public init(version: String, pid: Int32, uptimeS: Double) {
            self.version = version
            self.pid = pid
            self.uptimeS = uptimeS
        }
        enum CodingKeys: String, CodingKey {
            case version, pid
            case uptimeS = "uptime_s"
        }
    }

    public var daemon: Daemon
    public var folders: [FolderStatus]

    public init(daemon: Daemon, folders: [FolderStatus]) {
        self.daemon = daemon
        self.folders = folders
    }
}

public enum FolderState: String, Codable, Sendable, Equatable {
    case starting, scanning, idle, syncing, paused, offline
    case waitingForApproval = "waiting_for_approval"
    case error
}

public struct Transfer: Codable, Sendable, Equatable {
    public var path: String
    public var direction: String  // "upload" or "download"
    public var bytesDone: Int64
    public var bytesTotal: Int64
    public init(path: String, direction: String, bytesDone: Int64, bytesTotal: Int64) {
        self.path = path
        self.direction = direction
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
    }
    enum CodingKeys: String, CodingKey {
        case path, direction
        case bytesDone = "bytes_done"
        case bytesTotal = "bytes_total"
    }
}

public struct PathErrorStatus: Codable, Sendable, Equatable {
    public var path: String
    /// For a person: what, and what to do.
    public var message: String
    /// ISO 8601, or nil when it will not be retried by itself.
    public var retryAt: String?
    /// For scripts (extension): the daemon's error code, e.g. `disk_full`, `symlink_in_path`
    /// (see docs/status.md); nil for errors recorded by an older release.
    public var code: String?
    /// For debugging (extension): the underlying cause, when there is one.
    public var cause: String?
    public init(path: String, message: String, retryAt: String?, code: String? = nil, cause: String? = nil) {
        self.path = path
        self.message = message
        self.retryAt = retryAt
        self.code = code
        self.cause = cause
    }
    enum CodingKeys: String, CodingKey {
        case path, message, code, cause
        case retryAt = "retry_at"
    }
}

public struct FolderStatus: Codable, Sendable, Equatable {
    public var id: String
    public var path: String
    public var state: FolderState
    public var pendingUploads: Int
    public var pendingDownloads: Int
    public var transferring: [Transfer]
    public var conflicts: Int
    public var errors: [PathErrorStatus]
    /// ISO 8601 of the last moment nothing was pending, nil before the first.
    public var lastSyncedAt: String?
    public var remoteCursor: Int64
    /// Directories under inotify watch (extension).
    public var watchedDirectories: Int
    /// Files and bytes moved each way since the daemon started (extension; nil from an
    /// older daemon).
    public var done: TransferTotals?
    /// The last files whose transfer finished, newest first (extension).
    public var recent: [CompletedTransfer]?

    public init(
        id: String, path: String, state: FolderState, pendingUploads: Int, pendingDownloads: Int,
        transferring: [Transfer], conflicts: Int, errors: [PathErrorStatus], lastSyncedAt: String?,
        remoteCursor: Int64, watchedDirectories: Int
    ) {
        self.id = id
        self.path = path
        self.state = state
        self.pendingUploads = pendingUploads
        self.pendingDownloads = pendingDownloads
        self.transferring = transferring
        self.conflicts = conflicts
        self.errors = errors
        self.lastSyncedAt = lastSyncedAt
        self.remoteCursor = remoteCursor
        self.watchedDirectories = watchedDirectories
    }

    enum CodingKeys: String, CodingKey {
        case id, path, state, transferring, conflicts, errors
        case pendingUploads = "pending_uploads"
        case pendingDownloads = "pending_downloads"
        case lastSyncedAt = "last_synced_at"
        case remoteCursor = "remote_cursor"
        case watchedDirectories = "watched_directories"
        case done, recent
    }
}

/// Answer of `pause` / `resume`.
public struct FolderActionReply: Codable, Sendable, Equatable {
    public var folders: [String]
    public init(folders: [String]) { self.folders = folders }
}

/// Answer of `retry`: the folders, and how many paths' pushes or remote changes are tried
/// again now.
public struct RetryReply: Codable, Sendable, Equatable {
    public var folders: [String]
    public var paths: Int
    /// The path asked for (`retry --path`), relative to its folder's root.
    public var path: String?
    public init(folders: [String], paths: Int, path: String? = nil) {
        self.folders = folders
        self.paths = paths
        self.path = path
    }
}

extension RetryReply {
    /// What `syncctl retry` (of a folder, or all) says: `retrying now: docs (1 path)`.
    public var said: String {
        "retrying now: " + folders.joined(separator: ", ") + " (\(pathsSaid))"
    }

    /// `1 path`, `3 paths`.
    public var pathsSaid: String { paths == 1 ? "1 path" : "\(paths) paths" }
}

/// Answer of `approve-deletes`.
public struct ApprovalReply: Codable, Sendable, Equatable {
    public var folders: [String]
    public var released: Int
    public init(folders: [String], released: Int) {
        self.folders = folders
        self.released = released
    }
}

/// Answer of `restore`: which version came back, and the revision it got.
public struct RestoreReply: Codable, Sendable, Equatable {
    public var folder: String
    public var path: String
    public var restoredRev: Int64
    public var newRev: Int64
    /// The path already held that version's content (at `newRev`): nothing was committed.
    public var unchanged: Bool?
    public init(folder: String, path: String, restoredRev: Int64, newRev: Int64, unchanged: Bool? = nil) {
        self.folder = folder
        self.path = path
        self.restoredRev = restoredRev
        self.newRev = newRev
        self.unchanged = unchanged
    }
}

/// One conflict copy the daemon made (`syncctl conflicts`).
public struct ConflictInfo: Codable, Sendable, Equatable {
    public var folder: String
    /// The conflict copy, which holds this device's version.
    public var path: String
    public var remoteRev: Int64
    public var detectedAt: String
    public init(folder: String, path: String, remoteRev: Int64, detectedAt: String) {
        self.folder = folder
        self.path = path
        self.remoteRev = remoteRev
        self.detectedAt = detectedAt
    }
    enum CodingKeys: String, CodingKey {
        case folder, path
        case remoteRev = "remote_rev"
        case detectedAt = "detected_at"
    }
}
