/// An entry as the server knows it: the current state of one path at a revision.
public struct WireEntry: Codable, Sendable, Equatable {
    public var path: String
    public var kind: EntryKind
    public var size: Int64
    public var mtimeNs: Int64
    public var mode: UInt32
    /// Ordered SHA-256 hex hashes of the chunks; empty for directories, symlinks and empty files.
    public var chunks: [String]
    /// SHA-256 over the concatenated raw chunk hashes (for a symlink: over its target bytes).
    public var contentHash: String
    public var deleted: Bool
    public var rev: Int64
    public var symlinkTarget: String?
    /// The device that committed this revision.
    public var device: String?
    /// Set when this revision is the arrival of a move: the entry's old path
    /// (whose tombstone follows at a later rev).
    public var movedFrom: String?
    /// Set on the tombstone a move leaves behind: the entry's new path.
    public var movedTo: String?

    public init(
        path: String, kind: EntryKind, size: Int64, mtimeNs: Int64, mode: UInt32, chunks: [String],
        contentHash: String, deleted: Bool, rev: Int64, symlinkTarget: String? = nil, device: String? = nil,
        movedFrom: String? = nil, movedTo: String? = nil
    ) {
        self.path = path
        self.kind = kind
        self.size = size
        self.mtimeNs = mtimeNs
        self.mode = mode
        self.chunks = chunks
        self.contentHash = contentHash
        self.deleted = deleted
        self.rev = rev
        self.symlinkTarget = symlinkTarget
        self.device = device
        self.movedFrom = movedFrom
        self.movedTo = movedTo
    }

    enum CodingKeys: String, CodingKey {
        case path, kind, size, mode, chunks, deleted, rev, device
        case mtimeNs = "mtime_ns"
        case contentHash = "content_hash"
        case symlinkTarget = "symlink_target"
        case movedFrom = "moved_from"
        case movedTo = "moved_to"
    }
}
