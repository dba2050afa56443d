import Crypto
import Foundation
import Glibc

/// Chunking a file again after an edit, with its previous chunk list as a guide: where the
/// bytes of a previous chunk are found again, unchanged (SHA-256, as ever), at a place where
/// a full chunking would cut, the chunk is taken as is, and FastCDC runs only over what
/// changed. The result is exactly what `chunk(fd:path:)` gives (tested against it), at a
/// fraction of its work: no cut over the unchanged bytes, and their hashes on both cores.
extension FileChunker {
    /// Chunks `fd` as `chunk(fd:path:)` does, taking chunks of `previous` (the file's last
    /// chunk list, in order, covering it from offset 0) where their bytes are still there.
    ///
    /// Why a previous chunk taken at `position` is what FastCDC would cut there: the cut from a
    /// position reads the bytes up to the cut and the one after it, and how far it may look
    /// (`maxSize`, or the end of the file if nearer). So the chunk must hash to what it did,
    /// the chunk after it must too (or both files end with it), and the distance to the end of
    /// the file, up to `maxSize`, must be the same as it was. Chunks are looked for where they
    /// were, or shifted by the change in size (one insertion or removal).
    public func chunk(fd: Int32, path: String, previous: [ChunkRef]) throws(ChunkingError) -> ChunkedFile {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ChunkingError(path: path, errno: errno, operation: "stat") }
        let size = Int64(info.st_size)
        guard previous.count > 1, let last = previous.last, isGuide(previous) else { return try chunk(fd: fd, path: path) }
        let previousSize = last.offset + Int64(last.length)
        var starts: [Int64: Int] = [:]
        for (index, ref) in previous.enumerated() { starts[ref.offset] = index }
        let shifts = size == previousSize ? [Int64(0)] : [0, size - previousSize]
        let guide = PreviousChunks(
            previous: previous, starts: starts, shifts: shifts, size: size, previousSize: previousSize, maxSize: Int64(cdc.maxSize))

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(windowSize, cdc.maxSize * 2), alignment: 16)
        defer { buffer.deallocate() }
        var refs: [ChunkRef] = []
        var position: Int64 = 0
        // How many previous chunks to check at once: grows while they keep matching.
        var run = 2
        // Bytes cut one chunk at a time since a previous chunk was last taken: past a window's
        // worth, the rest of the file is chunked as a stream (a file rewritten whole is no
        // slower than without a guide).
        var missed: Int64 = 0
        while position < size {
            if missed >= Int64(windowSize) {
                refs += try chunks(fd: fd, path: path, from: position)
                position = refs.last.map { $0.offset + Int64($0.length) } ?? position
                break
            }
            if let (first, shift) = guide.candidate(at: position) {
                let taken = try guide.take(from: first, shift: shift, upTo: run, fd: fd, path: path, buffer: buffer)
                if !taken.isEmpty {
                    refs += taken
                    position = taken.last!.offset + Int64(taken.last!.length)
                    run = min(run * 2, 1 << 12)
                    missed = 0
                    continue
                }
                run = 2
            }
            // Changed here: one chunk cut and hashed, as a full chunking would.
            let length = try Self.readUp(to: min(Int64(cdc.maxSize), size - position), at: position, fd: fd, path: path, into: buffer)
            guard length > 0 else { break }  // shorter than its stat said: the caller sees the size differ
            let window = UnsafeRawBufferPointer(rebasing: buffer[0..<length])
            let cut = cdc.cut(window)
            let hash = Hashing.sha256Hex(UnsafeRawBufferPointer(rebasing: window[0..<cut]))
            refs.append(ChunkRef(hash: hash, offset: position, length: cut))
            position += Int64(cut)
            missed += Int64(cut)
        }
        return ChunkedFile(chunks: refs, size: position, contentHash: Hashing.contentHash(chunks: refs.map(\.hash)))
    }

    /// Whether `previous` can be what this chunker cut: contiguous from 0, every chunk within
    /// FastCDC's sizes (the last may be shorter). A list cut otherwise (another device's, with
    /// other sizes) is not used: taking its chunks could give other cuts than FastCDC's.
    func isGuide(_ previous: [ChunkRef]) -> Bool {
        var offset: Int64 = 0
        for (index, ref) in previous.enumerated() {
            guard ref.offset == offset, ref.length > 0, ref.length <= cdc.maxSize,
                ref.length >= cdc.minSize || index == previous.count - 1
            else { return false }
            offset += Int64(ref.length)
        }
        return true
    }

    /// Reads up to `count` bytes at `offset` into the start of `buffer`; fewer at the end of the file.
    static func readUp(to count: Int64, at offset: Int64, fd: Int32, path: String, into buffer: UnsafeMutableRawBufferPointer)
        throws(ChunkingError) -> Int
    {
        var filled = 0
        let wanted = Int(min(count, Int64(buffer.count)))
        while filled < wanted {
            let n = pread(fd, buffer.baseAddress! + filled, wanted - filled, off_t(offset) + off_t(filled))
            if n < 0 {
                if errno == EINTR { continue }
                throw ChunkingError(path: path, errno: errno, operation: "read")
            }
            if n == 0 { break }
            filled += n
        }
        return filled
    }
}

/// The previous chunk list of a file being chunked again, and where its chunks may be now.
struct PreviousChunks {
    let previous: [ChunkRef]
    let starts: [Int64: Int]
    let shifts: [Int64]
    let size: Int64
    let previousSize: Int64
    let maxSize: Int64

    /// A previous chunk that may start at `position`, and by how much it moved.
    func candidate(at position: Int64) -> (index: Int, shift: Int64)? {
        for shift in shifts {
            if let index = starts[position - shift] { return (index, shift) }
        }
        return nil
    }

    /// Previous chunks `first`, `first + 1`, … (at most `limit`, and what fits in `buffer`),
    /// moved by `shift`, that are still there and where a full chunking would cut them: each
    /// hashes as it did, so does the one after it (or the file ends with it), and the file
    /// ends as far away (up to `maxSize`) as it did. Their hashes are computed on all cores.
    /// Empty when the first is not.
    func take(
        from first: Int, shift: Int64, upTo limit: Int, fd: Int32, path: String, buffer: UnsafeMutableRawBufferPointer
    ) throws(ChunkingError) -> [ChunkRef] {
        // The chunks to check: the ones to take, and one more behind them (see above).
        var end = first
        var bytes = 0
        while end < previous.count && end - first <= limit && bytes + previous[end].length <= buffer.count {
            bytes += previous[end].length
            end += 1
        }
        guard end > first else { return [] }
        let start = previous[first].offset + shift
        guard start + Int64(bytes) <= size else { return [] }
        // Shorter than its stat said: nothing taken.
        guard try FileChunker.readUp(to: Int64(bytes), at: start, fd: fd, path: path, into: buffer) == bytes else { return [] }
        let matches = HashCheck(buffer: UnsafeRawBufferPointer(rebasing: buffer[0..<bytes]), chunks: Array(previous[first..<end])).run()
        var taken: [ChunkRef] = []
        for k in first..<end {
            let ref = previous[k]
            let at = ref.offset + shift
            guard matches[k - first] else { break }
            let isLast = k == previous.count - 1
            if isLast {
                guard at + Int64(ref.length) == size else { break }
            } else {
                // The chunk after it must be checked too: it holds the byte the cut looked at.
                guard k + 1 < end, matches[k + 1 - first] else { break }
            }
            guard min(size - at, maxSize) == min(previousSize - ref.offset, maxSize) else { break }
            taken.append(ChunkRef(hash: ref.hash, offset: at, length: ref.length))
        }
        return taken
    }
}

/// The SHA-256 of each chunk of a buffer, compared with what it was, on all cores.
private final class HashCheck: @unchecked Sendable {
    // Unchecked: each iteration of `run` writes its own element of `results` only.
    let buffer: UnsafeRawBufferPointer
    let chunks: [ChunkRef]
    private let results: UnsafeMutableBufferPointer<Bool>

    init(buffer: UnsafeRawBufferPointer, chunks: [ChunkRef]) {
        self.buffer = buffer
        self.chunks = chunks
        results = .allocate(capacity: chunks.count)
        results.initialize(repeating: false)
    }

    deinit { results.deallocate() }

    /// Whether each chunk hashes as it did.
    func run() -> [Bool] {
        let base = chunks.first?.offset ?? 0
        DispatchQueue.concurrentPerform(iterations: chunks.count) { i in
            let ref = chunks[i]
            let from = Int(ref.offset - base)
            results[i] = Hashing.sha256Hex(UnsafeRawBufferPointer(rebasing: buffer[from..<(from + ref.length)])) == ref.hash
        }
        return Array(results)
    }
}
