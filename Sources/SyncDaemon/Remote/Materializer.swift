import Foundation
import Glibc
import SyncCore

public struct MaterializeError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable { case io, hashMismatch, changedMeanwhile, notEmpty }
    public var code: Code
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }

    static func io(_ op: String, _ path: String, _ err: Int32 = errno) -> MaterializeError {
        MaterializeError(code: .io, path: path, message: "\(op): \(String(cString: strerror(err)))")
    }
}

/// Writes remote state into the folder safely: files are assembled in a
/// staging file on the same file system, verified, fsynced and renamed into
/// place only if the target is still what was planned against.
struct Materializer: Sendable {
    let root: String
    let trashRoot: String
    let chunker = FileChunker()

    func full(_ path: String) -> String { root + "/" + path }

    /// What is at `path` now; hashes it only when stat says it changed since `record`.
    func inspect(_ path: String, record: LocalRecord?) throws(MaterializeError) -> (view: LocalView, stat: FileStat?) {
        switch FileStat.lstat(full(path)) {
        case .missing: return (.absent, nil)
        case .unsupported: return (LocalView(kind: .file, contentHash: "unsupported"), nil)
        case .failed(let code): throw .io("stat", path, code)
        case .found(let stat):
            switch stat.kind {
            case .directory: return (LocalView(kind: .directory, contentHash: Hashing.contentHash(chunks: [])), stat)
            case .symlink:
                return (LocalView(kind: .symlink, contentHash: Hashing.sha256Hex(Array(try readLink(path).utf8))), stat)
            case .file:
                if let record, record.matches(stat) { return (LocalView(kind: .file, contentHash: record.contentHash), stat) }
                let fd = open(full(path), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                guard fd >= 0 else { throw .io("open", path) }
                defer { close(fd) }
                do {
                    return (LocalView(kind: .file, contentHash: try chunker.chunk(fd: fd, path: path).contentHash), stat)
                } catch {
                    throw .io("read", path, error.errno)
                }
            }
        }
    }

    func readLink(_ path: String) throws(MaterializeError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(full(path), &buffer, buffer.count - 1)
        guard n >= 0 else { throw .io("readlink", path) }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The target must still be what we planned against (`expected`, nil = absent).
    func checkUnchanged(_ path: String, expected: FileStat?) throws(MaterializeError) {
        let now: FileStat?
        switch FileStat.lstat(full(path)) {
        case .missing: now = nil
        case .found(let s): now = s
        case .unsupported, .failed: throw MaterializeError(code: .changedMeanwhile, path: path, message: "changed meanwhile")
        }
        // A directory's own stat changes when entries inside it change: only its kind matters.
        if let a = now, let b = expected, a.kind == .directory, b.kind == .directory { return }
        guard now == expected else {
            throw MaterializeError(code: .changedMeanwhile, path: path, message: "changed on disk while downloading")
        }
    }

    func ensureParent(of path: String) throws(MaterializeError) {
        guard let slash = path.lastIndex(of: "/") else { return }
        let parent = full(String(path[..<slash]))
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw MaterializeError(code: .io, path: path, message: "cannot create parent directory: \(error)")
        }
    }

    func stagingPath(for path: String) -> String {
        let dir = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        return full(dir + ".syncd-tmp-" + UUID().uuidString.prefix(12))
    }

    func makeDirectory(_ path: String, mode: UInt32) throws(MaterializeError) -> FileStat {
        try ensureParent(of: path)
        if mkdir(full(path), mode_t(mode == 0 ? 0o755 : mode)) != 0 && errno != EEXIST { throw .io("mkdir", path) }
        guard case .found(let stat) = FileStat.lstat(full(path)), stat.kind == .directory else {
            throw MaterializeError(code: .changedMeanwhile, path: path, message: "not a directory")
        }
        return stat
    }

    func makeSymlink(_ path: String, target: String, expected: FileStat?) throws(MaterializeError) -> FileStat {
        try ensureParent(of: path)
        let staging = stagingPath(for: path)
        guard symlink(target, staging) == 0 else { throw .io("symlink", path) }
        do { try checkUnchanged(path, expected: expected) } catch {
            unlink(staging)
            throw error
        }
        guard rename(staging, full(path)) == 0 else {
            let e = errno
            unlink(staging)
            throw .io("rename", path, e)
        }
        guard case .found(let stat) = FileStat.lstat(full(path)) else { throw .io("stat", path) }
        return stat
    }

    /// For futimens/utimensat: atime left alone (UTIME_OMIT), mtime set.
    static func times(mtimeNs: Int64) -> [timespec] {
        [
            timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),
            timespec(tv_sec: Int(mtimeNs / 1_000_000_000), tv_nsec: Int(mtimeNs % 1_000_000_000)),
        ]
    }

    /// Renames a file for a remote move, if it is still what was planned
    /// (`expected`), and gives it the entry's mode and mtime.
    func move(_ from: String, to: String, expected: FileStat, mode: UInt32, mtimeNs: Int64) throws(MaterializeError) -> FileStat {
        try checkUnchanged(from, expected: expected)
        guard rename(full(from), full(to)) == 0 else { throw .io("rename", to) }
        guard chmod(full(to), mode_t(mode & 0o7777 == 0 ? 0o644 : mode & 0o7777)) == 0 else { throw .io("chmod", to) }
        var times = Self.times(mtimeNs: mtimeNs)
        guard utimensat(AT_FDCWD, full(to), &times, AT_SYMLINK_NOFOLLOW) == 0 else { throw .io("set mtime", to) }
        guard case .found(let stat) = FileStat.lstat(full(to)) else { throw .io("stat", to) }
        return stat
    }

    /// Moves a removed file into the trash (kept for the retention period);
    /// a directory is removed only when it is empty.
    func moveToTrash(_ path: String, kind: EntryKind, stamp: String) throws(MaterializeError) {
        if kind == .directory {
            if rmdir(full(path)) != 0 {
                if errno == ENOENT { return }
                if errno == ENOTEMPTY || errno == EEXIST {
                    throw MaterializeError(code: .notEmpty, path: path, message: "directory not empty")
                }
                throw .io("rmdir", path)
            }
            return
        }
        let destination = trashRoot + "/" + stamp + "/" + path
        do {
            try FileManager.default.createDirectory(
                atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        } catch {
            throw MaterializeError(code: .io, path: path, message: "cannot create trash directory: \(error)")
        }
        if rename(full(path), destination) == 0 { return }
        if errno == ENOENT { return }
        guard errno == EXDEV else { throw .io("move to trash", path) }
        do {
            try FileManager.default.copyItem(atPath: full(path), toPath: destination)
            try FileManager.default.removeItem(atPath: full(path))
        } catch {
            throw MaterializeError(code: .io, path: path, message: "cannot move to trash: \(error)")
        }
    }
}
