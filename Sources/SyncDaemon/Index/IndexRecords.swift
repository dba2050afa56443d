import SyncCore

/// What we last saw of a path on disk, and what its content hashed to.
public struct LocalRecord: Sendable, Equatable, Codable {
    public var path: String
    public var kind: EntryKind
    public var inode: UInt64
    public var size: Int64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var mode: UInt32
    public var contentHash: String
    public var chunks: [String]
    public var symlinkTarget: String?

    /// Same file as far as stat can tell: no need to read it again.
    public func matches(_ stat: FileStat) -> Bool {
        kind == stat.kind && inode == stat.inode && size == stat.size && mtimeNs == stat.mtimeNs
            && ctimeNs == stat.ctimeNs && mode == stat.mode
    }
}

/// The last state both sides agreed on.
public struct BaseRecord: Sendable, Equatable, Codable {
    public var path: String
    public var kind: EntryKind
    public var rev: Int64
    public var contentHash: String
    public var deleted: Bool
    /// Permission bits of a live file or directory as committed (nil: a symlink, a
    /// tombstone, or recorded before modes were kept).
    public var mode: UInt32? = nil

    /// The mode a base record keeps for a committed entry.
    public static func mode(kind: EntryKind, mode: UInt32, deleted: Bool) -> UInt32? {
        deleted || kind == .symlink ? nil : Modes.known(mode)
    }
}
