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
    /// The length of each of `chunks`, in order, for a file of more than one chunk when it
    /// was chunked here or assembled from them (nil: not known, or one chunk). With the
    /// stat it was recorded with, it says where each chunk is without reading the file
    /// (`chunkLayout`).
    public var chunkLengths: [Int]? = nil

    /// Same file as far as stat can tell: no need to read it again.
    public func matches(_ stat: FileStat) -> Bool {
        kind == stat.kind && inode == stat.inode && size == stat.size && mtimeNs == stat.mtimeNs
            && ctimeNs == stat.ctimeNs && mode == stat.mode
    }

    /// Where each chunk is in the file as recorded, when `chunkLengths` describes it whole
    /// (one length per chunk, each positive, adding up to the size); nil otherwise.
    public var chunkLayout: [ChunkRef]? {
        guard kind == .file, let lengths = chunkLengths, lengths.count == chunks.count, chunks.count > 1 else { return nil }
        var refs: [ChunkRef] = []
        refs.reserveCapacity(chunks.count)
        var offset: Int64 = 0
        for (hash, length) in zip(chunks, lengths) {
            // Each within what is left of the size (no overflow from a damaged row).
            guard length > 0, Int64(length) <= size - offset else { return nil }
            refs.append(ChunkRef(hash: hash, offset: offset, length: length))
            offset += Int64(length)
        }
        return offset == size ? refs : nil
    }

    /// The chunk lengths a record keeps: only for a file of more than one chunk.
    static func lengths(_ lengths: [Int]?) -> [Int]? {
        guard let lengths, lengths.count > 1 else { return nil }
        return lengths
    }

    /// A later write(2) cannot leave the file's stat as recorded: on a file system where a
    /// write sets mtime and ctime to the same clock tick (`LocalChunks.timestampsShareOneClock`),
    /// a stat whose mtime differs from its ctime (a downloaded file's mtime is the remote
    /// one's) cannot come back after one. A record whose mtime is its ctime may have been
    /// taken in the tick of a write that a second write in the same tick would not show
    /// (racy git's problem): what it says is checked before it is trusted without reading
    /// (`LocalChunks`). Stores through a shared mmap into pages already dirty change no
    /// timestamp at all, here as for every stat-based scan.
    public var isSettled: Bool { mtimeNs != ctimeNs }
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
