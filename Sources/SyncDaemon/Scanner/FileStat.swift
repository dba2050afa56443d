import Glibc
import SyncCore

/// The stat fields change detection looks at. Symlinks are never followed.
public struct FileStat: Sendable, Equatable {
    public var kind: EntryKind
    public var inode: UInt64
    public var size: Int64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var mode: UInt32

    init(kind: EntryKind, inode: UInt64, size: Int64, mtimeNs: Int64, ctimeNs: Int64, mode: UInt32) {
        self.kind = kind
        self.inode = inode
        self.size = size
        self.mtimeNs = mtimeNs
        self.ctimeNs = ctimeNs
        self.mode = mode
    }

    init?(_ st: stat) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .file
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: return nil  // sockets, fifos, devices are not synced
        }
        inode = UInt64(st.st_ino)
        size = kind == .file ? Int64(st.st_size) : 0
        mtimeNs = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        ctimeNs = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        mode = UInt32(st.st_mode & 0o7777)
    }

    public enum Lookup: Sendable, Equatable {
        case found(FileStat)
        case missing
        /// Exists but is not something we sync (socket, fifo, device).
        case unsupported
        case failed(errno: Int32)
    }

    public static func fstat(_ fd: Int32) -> FileStat? {
        fstatCountingLinks(fd)?.stat
    }

    /// `fstat`, with the file's number of hard links (names), which is not among the fields
    /// change detection compares.
    static func fstatCountingLinks(_ fd: Int32) -> (stat: FileStat, links: UInt64)? {
        var st = stat()
        guard Glibc.fstat(fd, &st) == 0, let found = FileStat(st) else { return nil }
        return (found, UInt64(st.st_nlink))
    }
}

extension FileStat {
    /// The same file with no write since `other` as far as a stat can tell (inode, size,
    /// mtime; not the ctime, which a rename changes).
    func isUnwritten(since other: FileStat) -> Bool {
        inode == other.inode && size == other.size && mtimeNs == other.mtimeNs
    }
}
