import Foundation
import SyncCore
import TestSupport

/// What is at a path, for comparing trees (an empty file and a directory have
/// the same content hash, so the kind must be part of it).
enum TreeItem: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    case directory
    case symlink(String)

    var description: String {
        switch self {
        case .file(let h): "file \(h.prefix(12))"
        case .directory: "dir"
        case .symlink(let h): "link \(h.prefix(12))"
        }
    }

    /// The content hash the server reports for it (a directory's is the empty hash).
    var contentHash: String {
        switch self {
        case .file(let h), .symlink(let h): h
        case .directory: Hashing.contentHash(chunks: [])
        }
    }
}

/// path → what is there, for everything under `root` (staging files skipped, symlinks not followed).
/// Files are hashed again only when their stat changed (`FileHashCache`): tests poll this
/// many times a second, and hashing a 200 MiB file on every poll would hold one of the
/// test process's two executor threads, stalling the in-process servers of other suites.
func typedTree(_ root: String) throws -> [String: TreeItem] {
    var out: [String: TreeItem] = [:]
    let fm = FileManager.default
    guard let walker = fm.enumerator(atPath: root) else { throw TestFailure("cannot walk \(root)") }
    while let path = walker.nextObject() as? String {
        if (path as NSString).lastPathComponent.hasPrefix(".syncd-tmp-") { continue }
        let full = root + "/" + path
        var st = stat()
        guard lstat(full, &st) == 0 else { throw TestFailure("cannot stat \(full): \(String(cString: strerror(errno)))") }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: out[path] = .directory
        case S_IFLNK: out[path] = .symlink(Hashing.sha256Hex(Array(try fm.destinationOfSymbolicLink(atPath: full).utf8)))
        default: out[path] = .file(try FileHashCache.shared.hash(full, st))
        }
    }
    return out
}

/// path → content hash of everything under `root` (symlinks by target, directories as the empty hash).
func localTree(_ root: String) throws -> [String: String] {
    try typedTree(root).mapValues(\.contentHash)
}

/// The inode at `path` (not following a symlink).
func inode(of path: String) throws -> UInt64 {
    var st = stat()
    guard lstat(path, &st) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return UInt64(st.st_ino)
}
