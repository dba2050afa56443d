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
    /// Bytes read at a time (see `standardWindow`); at least twice `cdc.maxSize` is used.
    public var windowSize: Int
    public init(cdc: FastCDC = .standard, windowSize: Int = FileChunker.standardWindow) {
        self.cdc = cdc
        self.windowSize = windowSize
    }

    /// Bytes read at a time: a window holds many chunks. While one window's chunks are
    /// hashed on one core, the next window is read and cut on another (the cut points
    /// depend on each other, the hashes do not). 16 MiB: two of them are part of syncd's peak
    /// memory during a big upload, and 32 MiB was no faster (docs/decisions/0025).
    public static let standardWindow = 16 << 20

    public func chunk(fd: Int32, path: String) throws(ChunkingError) -> ChunkedFile {
        let chunks = try chunks(fd: fd, path: path, from: 0)
        return ChunkedFile(chunks: chunks, size: chunks.last.map { $0.offset + Int64($0.length) } ?? 0,
            contentHash: Hashing.contentHash(chunks: chunks.map(\.hash)))
    }

    /// The chunks of `fd` from `start` (where a chunk starts: 0, or the end of one) to its end,
    /// read as a stream from there.
    func chunks(fd: Int32, path: String, from start: Int64) throws(ChunkingError) -> [ChunkRef] {
        // A file smaller than a window gets a window its size (a check of a small file
        // must not take a full window); the second window is made only when the first is not all.
        var size = stat()
        let known = fstat(fd, &size) == 0 && Int64(size.st_size) >= start ? Int(Int64(size.st_size) - start) : windowSize
        let capacity = max(min(windowSize, known + 1), cdc.maxSize * 2)
        guard lseek(fd, off_t(start), SEEK_SET) == start else { throw ChunkingError(path: path, errno: errno, operation: "seek") }
        var current = ChunkWindow(capacity: capacity)
        current.load(carry: nil, fd: fd, path: path, cdc: cdc)
        var spare: ChunkWindow?
        var refs: [ChunkRef] = []
        var offset = start
        while true {
            if let failure = current.failure { throw failure }
            if current.cuts.isEmpty { break }
            let window = current, cdc = self.cdc
            let more = !window.eof
            let following: ChunkWindow? = more ? (spare ?? ChunkWindow(capacity: capacity)) : nil
            DispatchQueue.concurrentPerform(iterations: more ? 2 : 1) { task in
                if task == 0 { window.hashCuts() } else { following?.load(carry: window, fd: fd, path: path, cdc: cdc) }
            }
            for (cut, digest) in zip(window.cuts, window.digests) {
                refs.append(ChunkRef(hash: Hashing.hex(digest), offset: offset, length: cut.length))
                offset += Int64(cut.length)
            }
            guard let following else { break }
            spare = current
            current = following
        }
        return refs
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

/// A window of a file being chunked: the bytes read, where they cut into chunks, the
/// tail not yet cut (carried into the next window), and the chunks' digests once hashed.
final class ChunkWindow: @unchecked Sendable {
    // Unchecked: `FileChunker.chunk` has one thread load a window while another hashes the
    // previous one (reading its bytes, writing its `digests`); the two are swapped between
    // rounds, never shared while one is written.
    private let buffer: UnsafeMutableRawBufferPointer
    private(set) var end = 0
    private(set) var cuts: [(start: Int, length: Int)] = []
    private(set) var tail = 0
    /// The file ended within this window (or before it).
    private(set) var eof = false
    private(set) var failure: ChunkingError?
    private(set) var digests: [SHA256.Digest] = []

    var capacity: Int { buffer.count }

    init(capacity: Int) { buffer = .allocate(byteCount: capacity, alignment: 16) }
    deinit { buffer.deallocate() }

    func hashCuts() {
        digests = cuts.map { SHA256.hash(data: UnsafeRawBufferPointer(rebasing: buffer[$0.start..<($0.start + $0.length)])) }
    }

    /// Starts with `carry`'s tail, reads until full or the end of the file, and cuts every
    /// chunk it can: each cut sees at least `maxSize` bytes or the rest of the file. A read
    /// that fails leaves `failure` set.
    func load(carry: ChunkWindow?, fd: Int32, path: String, cdc: FastCDC) {
        end = 0
        failure = nil
        cuts.removeAll(keepingCapacity: true)
        digests.removeAll(keepingCapacity: true)
        eof = carry?.eof ?? false
        if let carry, carry.end > carry.tail {
            let rest = UnsafeRawBufferPointer(rebasing: carry.buffer[carry.tail..<carry.end])
            buffer.baseAddress!.copyMemory(from: rest.baseAddress!, byteCount: rest.count)
            end = rest.count
        }
        while !eof && end < buffer.count {
            let n = read(fd, buffer.baseAddress! + end, buffer.count - end)
            if n < 0 {
                if errno == EINTR { continue }
                failure = ChunkingError(path: path, errno: errno, operation: "read")
                return
            }
            if n == 0 { eof = true } else { end += n }
        }
        var start = 0
        while start < end && (eof || end - start >= cdc.maxSize) {
            let length = cdc.cut(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
            cuts.append((start, length))
            start += length
        }
        tail = start
    }
}
