import Foundation
import Glibc
import SyncCore
import Synchronization

/// Changes the folder's namespace safely for remote state: every path is resolved beneath
/// the folder root without following symlinks (`FolderRoot`); directories, symlinks,
/// modes, moves and the trash, each done only if the target is still what was planned
/// against. A file's bytes are `FileAssembler`'s.
struct Materializer: Sendable {
    let folder: FolderRoot
    let trashRoot: String
    let chunker = FileChunker()
    /// A fault-injection seam for tests: runs between a removal's check of the file and its
    /// move to the trash (where a user's write can land).
    var beforeTrashMove: (@Sendable () -> Void)? = nil

    init(root: String, trashRoot: String, pin: RootPin? = nil) {
        self.folder = FolderRoot(root, pin: pin)
        self.trashRoot = trashRoot
    }

    var root: String { folder.path }

    /// Resolves `path`'s parent beneath the root (creating missing directories with `create`).
    func locate(_ path: String, create: Bool = false) throws(DaemonError) -> Located {
        do {
            return try folder.parent(of: path, create: create)
        } catch {
            throw error
        }
    }

    /// What is at `path` now; hashes it only when stat says it changed since `record`.
    func inspect(_ path: String, record: LocalRecord?) throws(DaemonError) -> (view: LocalView, stat: FileStat?) {
        try inspect(path, record: record, found: folder.lookup(path))
    }

    /// `inspect`, through directories held open for a batch.
    func inspect(_ path: String, record: LocalRecord?, reusing open: inout OpenDirectories) throws(DaemonError)
        -> (view: LocalView, stat: FileStat?)
    {
        try inspect(path, record: record, found: open.lookup(path, in: folder))
    }

    private func inspect(_ path: String, record: LocalRecord?, found: (located: Located?, stat: FileStat.Lookup))
        throws(DaemonError) -> (view: LocalView, stat: FileStat?)
    {
        let (located, lookup) = found
        switch lookup {
        case .missing: return (.absent, nil)
        case .unsupported: return (LocalView(kind: .file, contentHash: "unsupported"), nil)
        case .failed(let code): throw .io("stat", path, code)
        case .found(let stat):
            guard let located else { return (.absent, nil) }
            switch stat.kind {
            case .directory:
                return (LocalView(kind: .directory, contentHash: Hashing.contentHash(chunks: []), mode: Modes.known(stat.mode)), stat)
            case .symlink:
                let target: String
                do { target = try located.readLink() } catch { throw error }
                return (LocalView(kind: .symlink, contentHash: Hashing.sha256Hex(Array(target.utf8))), stat)
            case .file:
                let mode = Modes.known(stat.mode)
                if let record, record.matches(stat) { return (LocalView(kind: .file, contentHash: record.contentHash, mode: mode), stat) }
                let fd: Int32
                do { fd = try located.open(flags: O_RDONLY) } catch { throw error }
                defer { close(fd) }
                do {
                    return (LocalView(kind: .file, contentHash: try chunker.chunk(fd: fd, path: path).contentHash, mode: mode), stat)
                } catch {
                    throw .io("read", path, error.errno)
                }
            }
        }
    }

    /// The target must still be what we planned against (`expected`, nil = absent).
    func checkUnchanged(_ target: Located, expected: FileStat?) throws(DaemonError) {
        let now: FileStat?
        switch target.lstat() {
        case .missing: now = nil
        case .found(let s): now = s
        case .unsupported, .failed:
            throw DaemonError(.changedMeanwhile, "changed meanwhile", path: target.relative)
        }
        // A directory's own stat changes when entries inside it change: only its kind matters.
        if let a = now, let b = expected, a.kind == .directory, b.kind == .directory { return }
        guard now == expected else {
            throw DaemonError(.changedMeanwhile, "changed on disk while downloading", path: target.relative)
        }
    }

    /// A fresh staging file name: this process's random start plus a count, in 16 hex digits.
    /// No system call per name (`UUID()` read /dev/urandom through an open, a read and a close
    /// for each; `UInt64.random` is one `getrandom` each: 10,000 for 10,000 downloaded files).
    static func stagingName() -> String {
        Scanner.stagingPrefix + nextStagingNumber()
    }

    /// A staging name for a file on its way to a trash on another file system: the next
    /// start moves such a file into the trash (a kill cut its copy short), where any other
    /// staging file is removed. It carries the file's name when that fits in a name.
    static func trashStagingName(for original: String?) -> String {
        let name = trashStagingPrefix + nextStagingNumber()
        guard let original else { return name }
        let named = name + "-" + original
        return named.utf8.count <= Int(NAME_MAX) ? named : name
    }

    static let trashStagingPrefix = Scanner.stagingPrefix + "trash-"

    /// The file's own name in a trash staging name (nil when it did not fit).
    static func originalName(fromTrashStaging name: String) -> String? {
        guard name.hasPrefix(trashStagingPrefix) else { return nil }
        let rest = name.dropFirst(trashStagingPrefix.count)
        guard rest.count > 17, rest.dropFirst(16).first == "-" else { return nil }
        return String(rest.dropFirst(17))
    }

    private static func nextStagingNumber() -> String {
        let hex = String(stagingStart &+ stagingCount.add(1, ordering: .relaxed).newValue, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static let stagingStart = UInt64.random(in: .min ... .max)
    private static let stagingCount = Atomic<UInt64>(0)

    /// Permission bits a remote entry may set: rwx for all plus sticky, never
    /// setuid or setgid; 0 (unknown) becomes `fallback`.
    static func safeMode(_ mode: UInt32, fallback: UInt32) -> mode_t {
        let bits = mode & 0o1777
        return mode_t(bits == 0 ? fallback : bits)
    }

    /// A directory with exactly the entry's mode (not narrowed by the umask: what the
    /// other side has is what this side keeps, else the difference would travel back).
    func makeDirectory(_ path: String, mode: UInt32) throws(DaemonError) -> FileStat {
        let target = try locate(path, create: true)
        let wanted = Self.safeMode(mode, fallback: 0o755)
        if mkdirat(target.directory.fd, target.name, wanted) != 0 && errno != EEXIST {
            throw .io("mkdir", path)
        }
        guard case .found(let stat) = target.lstat(), stat.kind == .directory else {
            throw DaemonError(.changedMeanwhile, "not a directory", path: path)
        }
        guard stat.mode & 0o7777 != UInt32(wanted) else { return stat }
        return try setMode(target, mode: mode)
    }

    /// Gives `path` the remote mode, if it is still what was planned (`expected`).
    func setMode(_ path: String, mode: UInt32, expected: FileStat) throws(DaemonError) -> FileStat {
        let target = try locate(path)
        try checkUnchanged(target, expected: expected)
        return try setMode(target, mode: mode)
    }

    private func setMode(_ target: Located, mode: UInt32) throws(DaemonError) -> FileStat {
        let wanted = Self.safeMode(mode, fallback: 0o644)
        guard fchmodat(target.directory.fd, target.name, wanted, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw .io("chmod", target.relative)
        }
        guard case .found(let stat) = target.lstat() else { throw .io("stat", target.relative) }
        return stat
    }

    /// Makes room for an entry of another kind than what is on disk (`expected`, as
    /// planned): an empty directory is removed (one with files in it stays, and is a
    /// reported error), a file or symlink that a directory replaces goes to the trash.
    /// Returns what is at the path afterwards, as the writers expect it.
    func makeRoom(at path: String, for kind: EntryKind, expected: FileStat?, stamp: String) throws(DaemonError) -> FileStat? {
        guard let expected, (expected.kind == .directory) != (kind == .directory) else { return expected }
        let target = try locate(path)
        try checkUnchanged(target, expected: expected)
        if expected.kind == .directory {
            guard unlinkat(target.directory.fd, target.name, AT_REMOVEDIR) == 0 || errno == ENOENT else {
                if errno == ENOTEMPTY || errno == EEXIST {
                    throw DaemonError(
                        .notEmpty,
                        "the other side replaced this directory by a \(kind.rawValue), and files here are not synced yet; move them away to let it in", path: path)
                }
                throw .io("rmdir", path)
            }
            return nil
        }
        try moveToTrash(path, kind: expected.kind, stamp: stamp, expected: expected)
        return nil
    }

    func makeSymlink(_ path: String, target linkTarget: String, expected: FileStat?) throws(DaemonError) -> FileStat {
        let target = try locate(path, create: true)
        let staging = target.sibling(Self.stagingName())
        guard symlinkat(linkTarget, staging.directory.fd, staging.name) == 0 else { throw .io("symlink", path) }
        do { try checkUnchanged(target, expected: expected) } catch {
            unlinkat(staging.directory.fd, staging.name, 0)
            throw error
        }
        let renamed = expected == nil ? staging.renameNoReplace(to: target) : staging.rename(to: target)
        guard renamed == 0 else {
            let e = errno
            unlinkat(staging.directory.fd, staging.name, 0)
            if e == EEXIST { throw DaemonError(.changedMeanwhile, "created meanwhile", path: path) }
            throw .io("rename", path, e)
        }
        guard case .found(let stat) = target.lstat() else { throw .io("stat", path) }
        return stat
    }

    /// For futimens/utimensat: atime left alone (UTIME_OMIT), mtime set (clamped
    /// to what the kernel takes; nanoseconds always in 0..<1e9).
    static func times(mtimeNs: Int64) -> [timespec] {
        let clamped = clampedMtime(mtimeNs)
        let (seconds, nanos) = clamped.quotientAndRemainder(dividingBy: 1_000_000_000)
        let (s, ns) = nanos < 0 ? (seconds - 1, nanos + 1_000_000_000) : (seconds, nanos)
        return [
            timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),
            timespec(tv_sec: Int(s), tv_nsec: Int(ns)),
        ]
    }

    /// The mtime a file gets for `mtimeNs` (what the kernel takes).
    static func clampedMtime(_ mtimeNs: Int64) -> Int64 {
        min(max(mtimeNs, EntryLimits.mtimeNs.lowerBound), EntryLimits.mtimeNs.upperBound)
    }

    /// Renames a file for a remote move, if it is still what was planned (`expected`),
    /// after giving it the entry's mode and mtime (`beforeRename` sees the stat it then has,
    /// which the rename keeps but for the ctime). Returns its stat at the new path and the
    /// directories renamed out of and into; not durable until the caller makes it so
    /// (`RemoteApplier.recordRenames`).
    func move(
        _ from: String, to: String, expected: FileStat, mode: UInt32, mtimeNs: Int64, beforeRename: (FileStat) -> Void
    ) throws(DaemonError) -> (stat: FileStat, directories: [DirectoryHandle]) {
        let source = try locate(from)
        let target = try locate(to)
        try checkUnchanged(source, expected: expected)
        // Only what differs (a moved file mostly keeps both): each change is an event of
        // the old path's, journaled and looked at for nothing.
        let wanted = Self.safeMode(mode, fallback: 0o644)
        if expected.mode & 0o7777 != UInt32(wanted) {
            guard fchmodat(source.directory.fd, source.name, wanted, AT_SYMLINK_NOFOLLOW) == 0 else { throw .io("chmod", from) }
        }
        if expected.mtimeNs != Self.clampedMtime(mtimeNs) {
            var times = Self.times(mtimeNs: mtimeNs)
            guard utimensat(source.directory.fd, source.name, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw .io("set mtime", from)
            }
        }
        guard case .found(let ready) = source.lstat() else { throw .io("stat", from) }
        // A write since the check that changed the size: not the file planned, planned again.
        // (One of the same size is not seen here: the mtime just given, which a file system
        // may round, hides it.)
        guard ready.inode == expected.inode, ready.size == expected.size else {
            throw DaemonError(.changedMeanwhile, "written while it was moved", path: from)
        }
        beforeRename(ready)
        guard source.renameNoReplace(to: target) == 0 else {
            if errno == EEXIST { throw DaemonError(.changedMeanwhile, "created meanwhile", path: to) }
            throw .io("rename", to)
        }
        guard case .found(let stat) = target.lstat() else { throw .io("stat", to) }
        // Written to since `ready`: the stat before the rename is what is known to hold the
        // planned bytes; recorded, its ctime never matches, and the next look (the write's own
        // events are journaled) reads the file again. The stat after it would match the
        // user's bytes with the remote content's hash, and nothing would read them again.
        return (stat.isUnwritten(since: ready) ? stat : ready, [source.directory, target.directory])
    }

    /// Renames `path` to `other` in the folder (conflict copies).
    func rename(_ path: String, to other: String) throws(DaemonError) {
        let source = try locate(path)
        let target = try locate(other, create: true)
        guard source.renameNoReplace(to: target) == 0 else { throw .io("rename to \(other)", path) }
    }
}
