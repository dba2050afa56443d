import Crypto
import Foundation

/// One chunk of a file: where it is and what it hashes to.
public struct ChunkRef: Sendable, Equatable {
    public var hash: String
    public var offset: Int64
    public var length: Int
    public init(hash: String, offset: Int64, length: Int) {
        self.hash = hash
        self.offset = offset
        self.length = length
    }
}

/// The chunk list of a file as read, plus what was observed while reading.
public struct ChunkedFile: Sendable, Equatable {
    public var chunks: [ChunkRef]
    public var size: Int64
    public var contentHash: String
}

public struct ChunkingError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var errno: Int32
    public var operation: String
    public init(path: String, errno: Int32, operation: String) {
        self.path = path
        self.errno = errno
        self.operation = operation
    }
    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno)))"
    }
}

/// Reads a file once, streaming, and cuts it into content-defined chunks.
public struct FileChunker: Sendable {
    public var cdc: FastCDC
    public init(cdc: FastCDC = .standard) { self.cdc = cdc }

    public func chunk(fd: Int32, path: String) throws(ChunkingError) -> ChunkedFile {
        let capacity = cdc.maxSize * 2
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var start = 0, end = 0, eof = false
        var offset: Int64 = 0
        var refs: [ChunkRef] = []
        var content = SHA256()
        while true {
            if !eof && end - start < cdc.maxSize {
                if start > 0 {
                    let rest = end - start
                    if rest > 0 { memmove(buffer.baseAddress!, buffer.baseAddress! + start, rest) }
                    start = 0
                    end = rest
                }
                while end < capacity {
                    let n = read(fd, buffer.baseAddress! + end, capacity - end)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw ChunkingError(path: path, errno: errno, operation: "read")
                    }
                    if n == 0 { eof = true; break }
                    end += n
                }
            }
            if start == end { break }
            let window = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
            let length = cdc.cut(window)
            let digest = SHA256.hash(data: UnsafeRawBufferPointer(rebasing: window[0..<length]))
            digest.withUnsafeBytes { content.update(bufferPointer: $0) }
            refs.append(ChunkRef(hash: Hashing.hex(digest), offset: offset, length: length))
            offset += Int64(length)
            start += length
        }
        return ChunkedFile(chunks: refs, size: offset, contentHash: Hashing.hex(content.finalize()))
    }

    /// Chunks bytes already in memory (small files, tests).
    public func chunk(bytes: [UInt8]) -> ChunkedFile {
        var refs: [ChunkRef] = []
        var content = SHA256()
        var start = 0
        bytes.withUnsafeBytes { all in
            while start < all.count {
                let window = UnsafeRawBufferPointer(rebasing: all[start...])
                let length = cdc.cut(window)
                let digest = SHA256.hash(data: UnsafeRawBufferPointer(rebasing: window[0..<length]))
                digest.withUnsafeBytes { content.update(bufferPointer: $0) }
                refs.append(ChunkRef(hash: Hashing.hex(digest), offset: Int64(start), length: length))
                start += length
            }
        }
        return ChunkedFile(chunks: refs, size: Int64(bytes.count), contentHash: Hashing.hex(content.finalize()))
    }
}
