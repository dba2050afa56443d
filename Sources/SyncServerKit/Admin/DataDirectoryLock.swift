import Foundation

/// The lock of a data directory (`data_dir/lock`, an `flock`): held by `sync-server serve`
/// for as long as it runs and by `sync-server storage gc`, so neither starts while the other
/// uses the directory (two processes appending packs or compacting them would corrupt the
/// store). The kernel drops it when the process ends, also on SIGKILL. The file holds the
/// holder's pid and what it does, for the message a second process gets.
public final class DataDirectoryLock: Sendable {
    let fd: Int32
    public let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Takes the lock of `dataDir` (created if missing) for `purpose` (e.g. "serve"), or
    /// throws an error naming the process that holds it.
    public static func acquire(dataDir: String, purpose: String) throws -> DataDirectoryLock {
        try DataDirectory.create(dataDir)
        let path = dataDir + "/lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw APIError.internalError("cannot open \(path): \(POSIX.errorText(errno))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            var holder = [UInt8](repeating: 0, count: 200)
            let read = holder.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            close(fd)
            guard code == EWOULDBLOCK else { throw APIError.internalError("cannot lock \(path): \(POSIX.errorText(code))") }
            let who = String(decoding: holder.prefix(max(0, read)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw APIError.invalidArgument(
                "\(dataDir) is in use by another sync-server process (\(who.isEmpty ? "unknown" : who)): "
                    + "stop it first (a running server collects garbage by itself)")
        }
        let note = Array("pid \(getpid()) (\(purpose))\n".utf8)
        guard ftruncate(fd, 0) == 0, (note.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }) == note.count else {
            let code = errno
            close(fd)
            throw APIError.internalError("cannot write \(path): \(POSIX.errorText(code))")
        }
        return DataDirectoryLock(fd: fd, path: path)
    }
}
