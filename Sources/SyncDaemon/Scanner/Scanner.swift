import Glibc
import SyncCore

/// One file system object found by a scan, relative to the folder root.
public struct ScannedItem: Sendable, Equatable {
    public var path: String
    public var stat: FileStat
}

/// What a scan found.
public struct ScanResult: Sendable {
    public var items: [ScannedItem] = []
    /// Subdirectories that could not be read (the rest of the walk went on).
    public var errors: [DaemonError] = []
    /// Names that are not valid UTF-8 (cannot be synced: the protocol's paths are
    /// UTF-8), shown with their odd bytes escaped as \xNN.
    public var undecodableNames: [String] = []
    /// Staging files of downloads (`.syncd-tmp-…`), which only an interrupted run leaves.
    public var stagingFiles: [String] = []
}

/// Walks a tree with openat/readdir/fstatat: no FileManager (20–30× slower
/// on 100k files), never follows symlinks, skips what `skip` says.
public struct Scanner: Sendable {
    public let root: String
    /// Whether an entry (a relative path, and whether it is a directory) is skipped. Asked
    /// only about entries whose parent directories it let through (the walk does not enter
    /// a skipped directory), so it need not look at the parents again.
    public let skip: @Sendable (String, Bool) -> Bool

    public init(root: String, skip: @escaping @Sendable (_ relativePath: String, _ isDirectory: Bool) -> Bool) {
        self.root = root
        self.skip = skip
    }

    /// Scans `relative` (nil = the root) and everything below it. Unreadable
    /// subdirectories are reported in `errors`, the rest of the walk goes on.
    public func scan(below relative: String? = nil) throws(DaemonError) -> ScanResult {
        // Reached beneath the root without following a symlink, like every other path.
        let start: DirectoryHandle
        do {
            start = try FolderRoot(root).openDirectory(relative)
        } catch {
            throw Self.unreadable(relative.map { root + "/" + $0 } ?? root, cause: error)
        }
        let fd = dup(start.fd)
        guard fd >= 0 else { throw Self.unreadable(relative.map { root + "/" + $0 } ?? root, cause: SystemCallError(call: "dup", errno: errno)) }
        var result = ScanResult()
        if let relative, skipsStart(relative) {
            close(fd)
            return result
        }
        walk(fd: fd, prefix: relative, into: &result)
        return result
    }

    /// Whether the directory a subtree scan starts at, or one above it, is skipped (the
    /// walk asks `skip` about what is below it, and only there).
    private func skipsStart(_ relative: String) -> Bool {
        var prefix = ""
        for part in relative.split(separator: "/") {
            prefix = prefix.isEmpty ? String(part) : prefix + "/" + part
            if skip(prefix, true) { return true }
        }
        return false
    }

    static let stagingPrefix = ".syncd-tmp-"

    /// A directory (or an entry in one) the scan could not read.
    static func unreadable(_ path: String, cause: any Error) -> DaemonError {
        DaemonError(.unreadableDirectory, "cannot scan \(path): \(cause)", path: path, underlying: cause)
    }

    /// `bytes` with everything outside printable ASCII escaped as \xNN.
    static func escaped(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }
            .joined()
    }

    private func walk(fd: Int32, prefix: String?, into result: inout ScanResult) {
        guard let dir = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name: String? = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { raw in
                    if raw[0] == 0x2E && (raw[1] == 0 || (raw[1] == 0x2E && raw[2] == 0)) { return nil }  // "." and ".."
                    if let name = String(validatingCString: raw) { return name }
                    let bytes = UnsafeRawBufferPointer(start: raw, count: strlen(raw))
                    let shown = Self.escaped(bytes)
                    result.undecodableNames.append(prefix.map { $0 + "/" + shown } ?? shown)
                    return nil
                }
            }
            guard let name else { continue }
            let path = prefix.map { $0 + "/" + name } ?? name
            var st = stat()
            guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno != ENOENT { result.errors.append(Self.unreadable(path, cause: SystemCallError(call: "fstatat", errno: errno))) }
                continue
            }
            guard let fileStat = FileStat(st) else { continue }
            let isDirectory = fileStat.kind == .directory
            if !isDirectory && name.hasPrefix(Self.stagingPrefix) { result.stagingFiles.append(path) }
            if skip(path, isDirectory) { continue }
            result.items.append(ScannedItem(path: path, stat: fileStat))
            if isDirectory {
                let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child < 0 {
                    result.errors.append(Self.unreadable(path, cause: SystemCallError(call: "open", errno: errno)))
                    continue
                }
                walk(fd: child, prefix: path, into: &result)
            }
        }
    }
}
