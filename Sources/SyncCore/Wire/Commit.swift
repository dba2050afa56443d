/// One change in a commit. Applied only if the path's current rev equals
/// `baseRev` (0 = the path must not exist, or exist only as a tombstone).
public struct CommitChange: Codable, Sendable, Equatable {
    public var path: String
    public var baseRev: Int64
    public var kind: EntryKind
    public var size: Int64
    public var mtimeNs: Int64
    public var mode: UInt32
    public var chunks: [String]
    public var contentHash: String
    public var deleted: Bool
    public var symlinkTarget: String?

    public init(
        path: String, baseRev: Int64, kind: EntryKind, size: Int64, mtimeNs: Int64, mode: UInt32,
        chunks: [String], contentHash: String, deleted: Bool, symlinkTarget: String? = nil
    ) {
        self.path = path
        self.baseRev = baseRev
        self.kind = kind
        self.size = size
        self.mtimeNs = mtimeNs
        self.mode = mode
        self.chunks = chunks
        self.contentHash = contentHash
        self.deleted = deleted
        self.symlinkTarget = symlinkTarget
    }

    enum CodingKeys: String, CodingKey {
        case path, kind, size, mode, chunks, deleted
        case baseRev = "base_rev"
        case mtimeNs = "mtime_ns"
        case contentHash = "content_hash"
        case symlinkTarget = "symlink_target"
    }
}

/// `POST /v1/folders/{folder}/commit`: a batch of changes in one transaction.
public struct CommitRequest: Codable, Sendable {
    public var changes: [CommitChange]
    public init(changes: [CommitChange]) { self.changes = changes }
}

public enum CommitStatus: String, Codable, Sendable {
    case ok
    case conflict
}

public struct CommitResult: Codable, Sendable, Equatable {
    public var path: String
    public var status: CommitStatus
    /// The revision the change got (`ok`), or the current revision (`conflict`).
    public var rev: Int64
    /// The current entry when `status == .conflict` (nil if the path does not exist).
    public var current: WireEntry?

    public init(path: String, status: CommitStatus, rev: Int64, current: WireEntry? = nil) {
        self.path = path
        self.status = status
        self.rev = rev
        self.current = current
    }
}

public struct CommitResponse: Codable, Sendable {
    public var results: [CommitResult]
    /// The folder's revision after this commit.
    public var folderRev: Int64

    public init(results: [CommitResult], folderRev: Int64) {
        self.results = results
        self.folderRev = folderRev
    }

    enum CodingKeys: String, CodingKey {
        case results
        case folderRev = "folder_rev"
    }
}
