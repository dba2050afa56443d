import Crypto
import Glibc
import NIOCore
import SyncCore

/// A unit of chunks as the body of its upload request: a lone chunk as its bytes, several
/// as `ChunkBatch` records. Each chunk is read (or copied from the bytes kept since hashing)
/// straight into the one buffer the request sends: no array per chunk, no second copy of
/// the batch (8 MiB units, several in flight, three copies each made syncd's peak memory
/// during a 1 GiB upload 160-180 MiB).
struct UploadBody {
    private(set) var buffer: ByteBuffer
    /// The chunks in the body, and their bytes.
    private(set) var chunks = 0
    private(set) var chunkBytes = 0
    /// Owners whose chunk could not be read, or (`verifying`) no longer matches its hash.
    private(set) var torn = Set<String>()
    /// `ChunkBatch` records (else the bytes of one chunk).
    let isBatch: Bool

    init(_ unit: [ChunkSender.Pending], single: Bool, verifying: Bool) {
        isBatch = !single
        let header = single ? 0 : ChunkBatch.headerSize
        buffer = ByteBufferAllocator().buffer(capacity: unit.reduce(0) { $0 + header + $1.length })
        var files = OpenFiles()
        defer { files.closeAll() }
        for p in unit {
            let hash = Hashing.rawBytes(hex: p.hash)
            let written = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: header + p.length) { space in
                let target = UnsafeMutableRawBufferPointer(rebasing: space[header..<(header + p.length)])
                guard let hash, Self.fill(target, with: p, files: &files),
                    !verifying || p.source.isInMemory || Self.matches(UnsafeRawBufferPointer(target), hash: hash)
                else { return 0 }
                if header > 0 { ChunkBatch.writeHeader(rawHash: hash, length: p.length, to: space) }
                return header + p.length
            }
            if written == 0 {
                torn.insert(p.owner)
            } else {
                chunks += 1
                chunkBytes += p.length
            }
        }
    }

    private static func matches(_ bytes: UnsafeRawBufferPointer, hash: [UInt8]) -> Bool {
        SHA256.hash(data: bytes).elementsEqual(hash)
    }

    /// The chunk's bytes into `target` (its length): from memory, or read from its file.
    private static func fill(_ target: UnsafeMutableRawBufferPointer, with p: ChunkSender.Pending, files: inout OpenFiles)
        -> Bool
    {
        switch p.source {
        case .none:
            return false
        case .memory(let all, _):
            let start = Int(p.offset)
            guard start >= 0, start + p.length <= all.count else { return false }
            all.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + p.length)])) }
            return true
        case .file(let path, let folder, _):
            // Gone or replaced meanwhile: the owner is torn and prepared again.
            guard let fd = files.descriptor(path, in: folder) else { return false }
            return ChunkRef(hash: p.hash, offset: p.offset, length: p.length).read(fd: fd, into: target)
        }
    }

    /// The files a unit reads, each opened once (a batch often holds several chunks of one file).
    private struct OpenFiles {
        private var open: [String: Int32] = [:]
        private var failed = Set<String>()

        mutating func descriptor(_ path: String, in folder: FolderRoot) -> Int32? {
            if let fd = open[path] { return fd }
            guard !failed.contains(path) else { return nil }
            do {
                let fd = try folder.open(path, flags: O_RDONLY)
                open[path] = fd
                return fd
            } catch {
                failed.insert(path)
                return nil
            }
        }

        func closeAll() { for fd in open.values { close(fd) } }
    }
}
