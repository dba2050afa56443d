import Foundation
import Glibc

/// What applying one operation did.
enum ApplyOutcome: Sendable, CustomStringConvertible {
    /// A write: the content hash and size of the file right after it.
    case wrote(contentHash: String, size: Int)
    /// Any other operation, carried out (with a note if only in part).
    case done(note: String?)
    /// Its precondition did not hold in the real folder (sync changed it): not an error.
    case skipped(String)

    var isApplied: Bool { if case .skipped = self { false } else { true } }

    var description: String {
        switch self {
        case .wrote(let hash, let size): "wrote \(hash.prefix(12)) (\(size) B)"
        case .done(let note): note.map { "done, \($0)" } ?? "done"
        case .skipped(let why): "skipped: \(why)"
        }
    }
}

/// Carries operations out on a real folder with plain system calls, checking
/// each precondition on the folder as it is now.
struct WorkloadApplier {
    let root: String

    func full(_ path: String) -> String { root + "/" + path }

    func apply(_ action: WorkloadAction) -> ApplyOutcome {
        switch action {
        case .create(let p, let bytes): return write(p, flags: O_CREAT | O_EXCL, bytes)
        case .modify(let p, let bytes): return write(p, flags: O_TRUNC, bytes)
        case .append(let p, let bytes): return write(p, flags: O_APPEND, bytes)
        case .truncate(let p, let percent):
            let fd = open(full(p), O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { return .skipped(Self.error("open")) }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return .skipped("not a regular file") }
            guard st.st_size > 0 else { return .skipped("already empty") }
            guard ftruncate(fd, st.st_size * off_t(percent) / 100) == 0 else { return .skipped(Self.error("ftruncate")) }
            return readBack(fd)
        case .rename(let p, let q):
            guard kind(p) == S_IFREG else { return .skipped("source is not a file") }
            guard kind(q) == nil else { return .skipped("target exists") }
            guard Glibc.rename(full(p), full(q)) == 0 else { return .skipped(Self.error("rename")) }
            return .done(note: nil)
        case .moveDirectory(let d, let e):
            guard kind(d) == S_IFDIR else { return .skipped("source is not a directory") }
            guard kind(e) == nil else { return .skipped("target exists") }
            guard Glibc.rename(full(d), full(e)) == 0 else { return .skipped(Self.error("rename")) }
            return .done(note: nil)
        case .delete(let p):
            guard kind(p) == S_IFREG else { return .skipped("not a file") }
            guard unlink(full(p)) == 0 else { return .skipped(Self.error("unlink")) }
            return .done(note: nil)
        case .removeTree(let d):
            guard kind(d) == S_IFDIR else { return .skipped("not a directory") }
            do {
                try FileManager.default.removeItem(atPath: full(d))
            } catch {
                // Sync put something in meanwhile: part of the tree went. Counts as done.
                return .done(note: "in part: \(error)")
            }
            return .done(note: nil)
        case .mkdir(let d):
            guard Glibc.mkdir(full(d), 0o755) == 0 else { return .skipped(Self.error("mkdir")) }
            return .done(note: nil)
        case .rmdir(let d):
            guard Glibc.rmdir(full(d)) == 0 else { return .skipped(Self.error("rmdir")) }
            return .done(note: nil)
        }
    }

    private func kind(_ path: String) -> mode_t? {
        var st = stat()
        guard lstat(full(path), &st) == 0 else { return nil }
        return st.st_mode & S_IFMT
    }

    /// Opens (never following a link), writes `bytes` in one go, and reads the
    /// file back through the same descriptor: what this device wrote, even if
    /// sync renames something else onto the path right after.
    private func write(_ path: String, flags: Int32, _ bytes: [UInt8]) -> ApplyOutcome {
        let fd = open(full(path), O_RDWR | O_NOFOLLOW | O_CLOEXEC | flags, 0o644)
        guard fd >= 0 else { return .skipped(Self.error("open")) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return .skipped("not a regular file") }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            // Not expected (disk full?); the file may be cut short, so this is no skip.
            guard n > 0 else { return .done(note: "write failed: \(Self.error("write"))") }
            done += n
        }
        let written = readBack(fd)
        // A download renamed over the path while this wrote (it opened the file before the
        // rename): what it wrote went to a file no longer in the folder, which no sync can
        // keep. Not tracked as a version (`VersionAudit`).
        var now = stat()
        if fstat(fd, &now) == 0, now.st_nlink == 0 {
            return .done(note: "wrote a file a download replaced meanwhile")
        }
        return written
    }

    private func readBack(_ fd: Int32) -> ApplyOutcome {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(bytes.count)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return .done(note: "read back failed: \(Self.error("pread"))") }
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        return .wrote(contentHash: contentHash(bytes), size: bytes.count)
    }

    private static func error(_ call: String) -> String { "\(call): \(String(cString: strerror(errno)))" }
}
