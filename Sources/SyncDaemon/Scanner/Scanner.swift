import Glibc
import SyncCore

/// One file system object found by a scan, relative to the folder root.
public struct ScannedItem: Sendable, Equatable {
    public var path: String
    public var stat: FileStat
}

public struct ScanError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var errno: Int32
    public var description: String { "cannot scan \(path): \(String(cString: strerror(errno)))" }
}

/// Walks a tree with openat/readdir/fstatat: no FileManager (20–30× slower
/// on 100k files), never follows symlinks, skips what `skip` says.
public struct Scanner: Sendable {
    public let root: String
    public let skip: @Sendable (String, Bool) -> Bool

    public init(root: String, skip: @escaping @Sendable (_ relativePath: String, _ isDirectory: Bool) -> Bool) {
        self.root = root
        self.skip = skip
    }

    /// Scans `relative` (nil = the root) and everything below it. Unreadable
    /// subdirectories are reported in `errors`, the rest of the walk goes on.
    public func scan(below relative: String? = nil) throws(ScanError) -> (items: [ScannedItem], errors: [ScanError]) {
        // Reached beneath the root without following a symlink, like every other path.
        let start: DirectoryHandle
        do {
            start = try FolderRoot(root).openDirectory(relative)
        } catch {
            throw ScanError(path: relative.map { root + "/" + $0 } ?? root, errno: error.errnoValue)
        }
        let fd = dup(start.fd)
        guard fd >= 0 else { throw ScanError(path: relative.map { root + "/" + $0 } ?? root, errno: errno) }
        var items: [ScannedItem] = []
        var errors: [ScanError] = []
        walk(fd: fd, prefix: relative, into: &items, errors: &errors)
        return (items, errors)
    }

    private func walk(fd: Int32, prefix: String?, into items: inout [ScannedItem], errors: inout [ScanError]) {
        guard let dir = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            let path = prefix.map { $0 + "/" + name } ?? name
            var st = stat()
            guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno != ENOENT { errors.append(ScanError(path: path, errno: errno)) }
                continue
            }
            guard let fileStat = FileStat(st) else { continue }
            let isDirectory = fileStat.kind == .directory
            if skip(path, isDirectory) { continue }
            items.append(ScannedItem(path: path, stat: fileStat))
            if isDirectory {
                let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child < 0 {
                    errors.append(ScanError(path: path, errno: errno))
                    continue
                }
                walk(fd: child, prefix: path, into: &items, errors: &errors)
            }
        }
    }
}
