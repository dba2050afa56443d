/// One change in a commit. Applied only if the path's current rev equals
/// `baseRev` (0 = the path must not exist, or exist only as a tombstone).
///
/// With `moveFrom`, the change is a move: the entry at `moveFrom` (whose rev
/// must equal `baseRev`) and, for a directory, every live entry below it move
/// to `path`, keeping their content; `path` must be free. Only `path`, `kind`,
/// `baseRev` and `moveFrom` matter then.
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
    /// The old path of a move (see above).
    public var moveFrom: String?

    public init(
        path: String, baseRev: Int64, kind: EntryKind, size: Int64, mtimeNs: Int64, mode: UInt32,
        chunks: [String], contentHash: String, deleted: Bool, symlinkTarget: String? = nil, moveFrom: String? = nil
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
        self.moveFrom = moveFrom
    }

    /// A move of the entry at `from` (and what is below it) to `path`.
    public static func move(from: String, to path: String, kind: EntryKind, baseRev: Int64) -> CommitChange {
        CommitChange(
            path: path, baseRev: baseRev, kind: kind, size: 0, mtimeNs: 0, mode: 0, chunks: [], contentHash: "",
            deleted: false, moveFrom: from)
    }

    enum CodingKeys: String, CodingKey {
        case path, kind, size, mode, chunks, deleted
        case baseRev = "base_rev"
        case mtimeNs = "mtime_ns"
        case contentHash = "content_hash"
        case symlinkTarget = "symlink_target"
        case moveFrom = "move_from"
    }
}

/// `POST /v1/folders/{folder}/commit`: a batch of changes in one transaction.
///
/// `commitId` (optional, chosen by the client, 8-64 characters of `A-Z a-z 0-9 -`)
/// makes the commit idempotent: the server remembers its reply, and a retry with
/// the same id and the same changes (after a lost reply) gets that reply again
/// without applying anything twice.
public struct CommitRequest: Codable, Sendable {
    public var changes: [CommitChange]
    public var commitId: String?
    public init(changes: [CommitChange], commitId: String? = nil) {
        self.changes = changes
        self.commitId = commitId
    }

    enum CodingKeys: String, CodingKey {
        case changes
        case commitId = "commit_id"
    }
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
    /// For a move it is the entry that stood in the way: the source's (changed or
    /// gone) or the one occupying the destination.
    public var current: WireEntry?
    /// For a move: the entries that moved (the source and what was below it),
    /// by old path and the rev each had, so the mover knows exactly what its
    /// own view of the old tree got right.
    public var moved: [MovedEntry]?

    public init(path: String, status: CommitStatus, rev: Int64, current: WireEntry? = nil, moved: [MovedEntry]? = nil) {
        self.path = path
        self.status = status
        self.rev = rev
        self.current = current
        self.moved = moved
    }
}

/// One entry a move took along: its old path and the revision it had there.
public struct MovedEntry: Codable, Sendable, Equatable {
    public var path: String
    public var rev: Int64
    public init(path: String, rev: Int64) {
        self.path = path
        self.rev = rev
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
