import Glibc

/// One process at a time on a directory: an exclusive `flock` on a lock file, held for as
/// long as this object lives (the kernel drops it when the process ends, SIGKILL included,
/// so a crash leaves no stale lock). The file holds the holder's `note` (its pid and what
/// it does), for the message a second process gets. Used by syncd (`state_dir/syncd.lock`)
/// and sync-server (`data_dir/lock`).
public final class ProcessLock: Sendable {
    public enum Failure: Error, Sendable {
        /// Another process holds it; its note (empty if it wrote none).
        case held(by: String)
        /// `operation` on the lock file failed with `errno`.
        case system(operation: String, errno: Int32)
    }

    private let fd: Int32

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit { close(fd) }

    /// Takes the lock on `path` (created 0600 if missing; a symlink there is refused) and
    /// writes `note` into it, or says who holds it.
    public static func acquire(path: String, note: String) throws(Failure) -> ProcessLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .system(operation: "open", errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            var buffer = [UInt8](repeating: 0, count: 200)
            let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            close(fd)
            guard code == EWOULDBLOCK else { throw .system(operation: "flock", errno: code) }
            let holder = String(decoding: buffer.prefix(max(0, read)), as: UTF8.self)
            throw .held(by: holder.split(whereSeparator: \.isNewline).first.map(String.init) ?? "")
        }
        let bytes = Array((note + "\n").utf8)
        guard ftruncate(fd, 0) == 0, (bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }) == bytes.count else {
            let code = errno
            close(fd)
            throw .system(operation: "write", errno: code)
        }
        return ProcessLock(fd: fd)
    }
}
