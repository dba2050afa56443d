import Glibc

/// One daemon per state directory: an exclusive `flock` on `syncd.lock` in it, taken
/// before the index, the journal or the control socket is opened and held until the
/// process ends (the kernel drops it when the process dies, SIGKILL included, so a crash
/// leaves no stale lock). The file holds the holder's pid, for the message a second
/// daemon prints before it exits having touched nothing else.
enum StateLock {
    static let fileName = "syncd.lock"

    /// Takes the lock or says who holds it. The descriptor stays open for the life of
    /// the process (closing it would release the lock).
    static func acquire(stateDir: String) throws(DaemonError) {
        let path = stateDir + "/" + fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw DaemonError(.stateDirectory, "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let err = errno
            let holder = readHolder(fd)
            close(fd)
            guard err == EWOULDBLOCK else {
                throw DaemonError(.stateDirectory, "cannot lock \(path): \(String(cString: strerror(err)))")
            }
            let who = holder.map { "(pid \($0)) " } ?? ""
            throw DaemonError(
                .stateDirectoryInUse,
                "another syncd \(who)is already using the state directory \(stateDir); stop it first, "
                    + "or give this one its own state_dir")
        }
        let pid = Array("\(getpid())\n".utf8)
        // The pid is only for the message above: failing to write it does not matter.
        if ftruncate(fd, 0) == 0 { _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
    }

    private static func readHolder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self).split(whereSeparator: \.isWhitespace).first.flatMap { Int32($0) }
    }
}
