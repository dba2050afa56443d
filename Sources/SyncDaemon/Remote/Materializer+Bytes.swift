import Glibc

/// Byte copies for downloads and the trash: every short write and EINTR handled.
extension Materializer {
    /// Everything `input` holds, appended to `output`.
    func copyBytes(from input: Int32, to output: Int32, path: String) throws(DaemonError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .io("read", path) }
            if n == 0 { return }
            try writeAll(output, Array(buffer[0..<n]), path: path)
        }
    }

    /// A chunk of zeros (4 KiB or more) is skipped over, not written: the file gets a
    /// hole there, so a sparse file arrives sparse (any run of zeros that fills a chunk
    /// takes no disk space; the bytes read back are the same). True when it was skipped.
    @discardableResult
    func writeOrSkip(_ fd: Int32, _ bytes: [UInt8], path: String) throws(DaemonError) -> Bool {
        let zeros = bytes.count >= 4096 && bytes.withUnsafeBytes { raw in
            raw.allSatisfy { $0 == 0 }
        }
        guard zeros else {
            try writeAll(fd, bytes, path: path)
            return false
        }
        guard lseek(fd, off_t(bytes.count), SEEK_CUR) >= 0 else { throw .io("seek", path) }
        return true
    }

    func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(DaemonError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .io("write", path) }
            done += n
        }
    }
}
