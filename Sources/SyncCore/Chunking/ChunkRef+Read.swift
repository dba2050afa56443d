import Glibc

extension ChunkRef {
    /// This chunk's bytes as the file at `fullPath` holds them now, or nil if
    /// it cannot be opened or is shorter. Callers verify the hash when it matters.
    public func read(from fullPath: String) -> [UInt8]? {
        let fd = open(fullPath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out = [UInt8](repeating: 0, count: length)
        var filled = 0
        while filled < length {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, length - filled, off_t(offset) + off_t(filled)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            filled += n
        }
        return out
    }
}
