import CLinux
import Glibc
import SyncCore

/// A directory that every file operation of a folder stays beneath.
///
/// Paths are resolved from a directory fd of the root one component at a
/// time with `O_NOFOLLOW | O_DIRECTORY`: a symlink (or anything that is not a
/// directory) in any parent component stops the walk, so nothing a remote
/// entry names can lead outside the root. The root path itself is the user's
/// choice and may be reached through symlinks. See docs/decisions/0007.
struct FolderRoot: Sendable {
    let path: String
    /// When set, every operation first checks that the root is still this directory.
    let pin: RootPin?

    init(_ path: String, pin: RootPin? = nil) {
        self.path = path
        self.pin = pin
    }

    /// The directory holding `relative`'s last component, opened without
    /// following a symlink anywhere below the root; with `create`, missing
    /// directories are made (mode 0755) on the way.
    func parent(of relative: String, create: Bool = false) throws(DaemonError) -> Located {
        var made: [DirectoryHandle] = []
        return try parent(of: relative, create: create, made: &made)
    }

    /// `parent(of:create:)`, adding to `made` each directory a new directory was made in
    /// (fsynced, it makes the new directory durable).
    func parent(of relative: String, create: Bool, made: inout [DirectoryHandle]) throws(DaemonError) -> Located {
        let components = try Self.components(of: relative)
        let last = components[components.count - 1]
        var dir = try openRoot(for: relative)
        var walked = ""
        for component in components.dropLast() {
            walked = walked.isEmpty ? String(component) : walked + "/" + component
            var madeHere = false
            let child = try dir.descend(into: String(component), create: create, walked: walked, relative: relative, made: &madeHere)
            if madeHere { made.append(dir) }
            dir = child
        }
        return Located(directory: dir, name: String(last), relative: relative)
    }

    /// `relative`'s components; a path that is empty, absolute or has an empty, `.` or
    /// `..` component is refused.
    static func components(of relative: String) throws(DaemonError) -> [Substring] {
        let components = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.isEmpty, !relative.hasPrefix("/"), !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else { throw DaemonError.containment(.invalidPath, path: relative, component: relative) }
        return components
    }

    /// The root itself (following the user's own symlinks to it, if any).
    func openRoot(for relative: String = "") throws(DaemonError) -> DirectoryHandle {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw DaemonError.containment(.io, path: relative, component: path, errno: errno) }
        if let expected = pin?.current {
            var st = stat()
            guard fstat(fd, &st) == 0, UInt64(st.st_dev) == expected.device, UInt64(st.st_ino) == expected.inode else {
                close(fd)
                throw DaemonError.containment(.rootChanged, path: relative, component: path)
            }
        }
        return DirectoryHandle(fd: fd)
    }

    /// `relative` resolved once, with its lstat: `.missing` (and no location)
    /// also when a parent is missing, not a directory or a symlink (nothing
    /// below a symlink is part of the folder). Callers that go on to read the
    /// path use the location instead of walking again.
    func lookup(_ relative: String) -> (located: Located?, stat: FileStat.Lookup) {
        lookup(relative) { relative throws(DaemonError) in try parent(of: relative) }
    }

    /// `lookup`, with `relative`'s parent resolved by `resolve` (`OpenDirectories`).
    func lookup(_ relative: String, resolving resolve: (String) throws(DaemonError) -> Located)
        -> (located: Located?, stat: FileStat.Lookup)
    {
        let located: Located
        do {
            located = try resolve(relative)
        } catch {
            if error.code == .io, let code = error.errnoValue, code != ENOENT { return (nil, .failed(errno: code)) }
            // Not "missing": what is on the real root is unknown, and must not read as deleted.
            if error.code == .rootChanged { return (nil, .failed(errno: ESTALE)) }
            return (nil, .missing)
        }
        return (located, located.lstat())
    }

    /// lstat of `relative` (see `lookup`).
    func lstat(_ relative: String) -> FileStat.Lookup { lookup(relative).stat }

    /// Opens `relative` itself (never a symlink: `O_NOFOLLOW` on the last component too).
    func open(_ relative: String, flags: Int32, mode: mode_t = 0) throws(DaemonError) -> Int32 {
        try parent(of: relative).open(flags: flags, mode: mode)
    }

    /// A directory below the root (`relative` nil or empty = the root), opened without following symlinks.
    func openDirectory(_ relative: String?) throws(DaemonError) -> DirectoryHandle {
        guard let relative, !relative.isEmpty else { return try openRoot() }
        let located = try parent(of: relative)
        return try located.directory.descend(into: located.name, create: false, walked: relative, relative: relative)
    }
}

/// An open directory fd, closed when the last reference goes.
final class DirectoryHandle: Sendable {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    /// The directory's file system and inode; nil if it cannot be read.
    var identity: (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }

    /// Whether the directory is removed (no link to it left).
    var isRemoved: Bool {
        var st = stat()
        return fstat(fd, &st) == 0 && st.st_nlink == 0
    }

    /// Opens the child directory `name`; a symlink or non-directory there is refused.
    func descend(into name: String, create: Bool, walked: String, relative: String) throws(DaemonError)
        -> DirectoryHandle
    {
        var made = false
        return try descend(into: name, create: create, walked: walked, relative: relative, made: &made)
    }

    /// `descend`, setting `made` when it made the directory.
    func descend(into name: String, create: Bool, walked: String, relative: String, made: inout Bool) throws(DaemonError)
        -> DirectoryHandle
    {
        var fd = openat(self.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 && errno == ENOENT && create {
            if mkdirat(self.fd, name, 0o755) == 0 {
                made = true
            } else if errno != EEXIST {
                throw DaemonError.containment(.io, path: relative, component: walked, errno: errno)
            }
            fd = openat(self.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard fd >= 0 else {
            let code = errno
            guard code == ELOOP || code == ENOTDIR else {
                throw DaemonError.containment(.io, path: relative, component: walked, errno: code)
            }
            var st = stat()
            let isLink = fstatat(self.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_mode & S_IFMT == S_IFLNK
            throw DaemonError.containment(isLink ? .symlinkInPath : .notADirectory, path: relative, component: walked)
        }
        return DirectoryHandle(fd: fd)
    }
}

/// One name inside an open directory: every operation on it is an `*at` call
/// that does not follow a symlink at the name itself.
struct Located: Sendable {
    let directory: DirectoryHandle
    let name: String
    /// The path relative to the root, for messages.
    let relative: String

    func lstat() -> FileStat.Lookup {
        var st = stat()
        if fstatat(directory.fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 {
            return errno == ENOENT || errno == ENOTDIR ? .missing : .failed(errno: errno)
        }
        guard let s = FileStat(st) else { return .unsupported }
        return .found(s)
    }

    /// A read-only open is also `O_NONBLOCK`: a FIFO swapped in after a stat must not
    /// block the caller (regular files ignore the flag); callers check the kind with fstat.
    func open(flags: Int32, mode: mode_t = 0) throws(DaemonError) -> Int32 {
        let nonBlocking = flags & O_ACCMODE == O_RDONLY ? O_NONBLOCK : 0
        let fd = openat(directory.fd, name, flags | nonBlocking | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else {
            let code = errno
            throw DaemonError.containment(code == ELOOP ? .symlinkInPath : .io, path: relative, component: relative, errno: code)
        }
        return fd
    }

    func readLink() throws(DaemonError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlinkat(directory.fd, name, &buffer, buffer.count - 1)
        guard n >= 0 else { throw DaemonError.containment(.io, path: relative, component: relative, errno: errno) }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A sibling name in the same directory (staging files, conflict copies).
    func sibling(_ other: String) -> Located {
        let slash = relative.lastIndex(of: "/").map { String(relative[...$0]) } ?? ""
        return Located(directory: directory, name: other, relative: slash + other)
    }

    /// renameat from here to `target` (both already resolved beneath their roots).
    func rename(to target: Located) -> Int32 {
        renameat(directory.fd, name, target.directory.fd, target.name)
    }

    /// Renames only if nothing is at `target` (else -1 with EEXIST): no window between
    /// checking that the target is free and the rename, where a user's new file at the
    /// target would be replaced. File systems without RENAME_NOREPLACE (EINVAL) get the
    /// check and the rename as two steps: anything but an empty place there (a file, a
    /// FIFO, a socket, a device, or a stat that failed) counts as taken.
    func renameNoReplace(to target: Located) -> Int32 {
        let done = clinux_rename_noreplace(directory.fd, name, target.directory.fd, target.name)
        guard done != 0, errno == EINVAL || errno == ENOSYS else { return done }
        guard case .missing = target.lstat() else {
            errno = EEXIST
            return -1
        }
        return rename(to: target)
    }
}
