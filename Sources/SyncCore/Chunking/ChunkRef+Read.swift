import Glibc

extension ChunkRef {
    /// This chunk's bytes as the open file `fd` holds them now, or nil if it
    /// is shorter or cannot be read. Callers verify the hash when it matters.
    public func read(fd: Int32) -> [UInt8]? {
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
