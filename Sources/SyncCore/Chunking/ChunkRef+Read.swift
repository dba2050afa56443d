import Glibc

extension ChunkRef {
    /// This chunk's bytes as the open file `fd` holds them now, or nil if it
    /// is shorter or cannot be read. Callers verify the hash when it matters.
    public func read(fd: Int32) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: length)
        return out.withUnsafeMutableBytes { read(fd: fd, into: $0) } ? out : nil
    }

    /// `read(fd:)` into `target` (`length` bytes, the caller's buffer): false if the file is
    /// shorter or cannot be read.
    public func read(fd: Int32, into target: UnsafeMutableRawBufferPointer) -> Bool {
        var filled = 0
        while filled < length {
            let n = pread(fd, target.baseAddress! + filled, length - filled, off_t(offset) + off_t(filled))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            filled += n
        }
        return true
    }
}
