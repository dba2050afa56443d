import Foundation
import NIOCore
import SyncCore

extension ChunkStore {
    /// Stores one verified chunk; false if it was already there.
    func store(hash: String, bytes: ByteBuffer) async throws -> Bool {
        try await offload {
            try bytes.withUnsafeReadableBytes { try self.storeBlocking(hash: hash, bytes: $0) }
        }
    }

    /// Stores verified batch records; returns how many were new.
    func store(records: [(hash: String, bytes: ArraySlice<UInt8>)]) async throws -> Int {
        let records = records.map { BatchRecord(hash: $0.hash, bytes: $0.bytes) }
        return try await offload {
            var stored = 0
            for record in records {
                let created = try record.bytes.withUnsafeBytes { try self.storeBlocking(hash: record.hash, bytes: $0) }
                if created { stored += 1 }
            }
            return stored
        }
    }

    private struct BatchRecord: Sendable {
        var hash: String
        var bytes: ArraySlice<UInt8>
    }

    /// temp file + rename, no fsync (see `syncIfNeeded`).
    func storeBlocking(hash: String, bytes: UnsafeRawBufferPointer) throws -> Bool {
        let final = path(for: hash)
        if access(final, F_OK) == 0 { return false }
        let temp = "\(tmpDir)/\(hash).\(RandomHex.make(bytes: 6))"
        do {
            let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw StoreIOError(operation: "open", path: temp, code: errno) }
            do {
                try POSIX.writeAll(fd: fd, bytes, path: temp)
            } catch {
                close(fd)
                throw error
            }
            guard close(fd) == 0 else { throw StoreIOError(operation: "close", path: temp, code: errno) }
            if rename(temp, final) != 0 {
                guard errno == ENOENT else { throw StoreIOError(operation: "rename", path: final, code: errno) }
                try makeFanOutDirectories(for: hash)
                guard rename(temp, final) == 0 else {
                    throw StoreIOError(operation: "rename", path: final, code: errno)
                }
            }
        } catch let error as StoreIOError {
            unlink(temp)
            throw error.apiError
        }
        noteWritten()
        return true
    }

    /// Creates `ab` and `ab/cd` under the root (two mkdirs, not a walk from `/`).
    private func makeFanOutDirectories(for hash: String) throws(StoreIOError) {
        let parent = "\(root)/\(hash.prefix(2))"
        let leaf = "\(parent)/\(hash.dropFirst(2).prefix(2))"
        for directory in [parent, leaf] where mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw StoreIOError(operation: "mkdir", path: directory, code: errno)
        }
    }

    /// The chunk's bytes (or the requested part of them); nil if not stored.
    func read(hash: String, rangeHeader: String?) async throws -> ChunkRead? {
        let path = path(for: hash)
        return try await offload {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                if errno == ENOENT { return nil }
                throw StoreIOError(operation: "open", path: path, code: errno).apiError
            }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw StoreIOError(operation: "fstat", path: path, code: errno).apiError }
            let size = Int64(info.st_size)
            let range: Range<Int64>
            switch ByteRange(header: rangeHeader, size: size) {
            case .unsatisfiable: return ChunkRead(bytes: ByteBuffer(), range: nil, total: size, satisfiable: false)
            case .whole: range = 0..<size
            case .part(let part): range = part
            }
            var buffer = ByteBufferAllocator().buffer(capacity: Int(range.count))
            var offset = range.lowerBound
            while offset < range.upperBound {
                let want = Int(range.upperBound - offset)
                var n = 0
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { out in
                    n = pread(fd, out.baseAddress!, want, off_t(offset))
                    return max(n, 0)
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StoreIOError(operation: "read", path: path, code: errno).apiError
                }
                if n == 0 { break }
                offset += Int64(n)
            }
            let partial = range.count == size ? nil : range
            return ChunkRead(bytes: buffer, range: partial, total: size, satisfiable: true)
        }
    }
}

extension ChunkStore {
    /// The stored chunks among `hashes` as one chunk batch body, in request order without
    /// duplicates, absent ones left out, stopping before a record would take the body past
    /// `limit` (the first record is always sent). Each chunk is checked against its hash
    /// as it is read: one whose bytes do not match is left out (and logged by the caller
    /// as missing), never served.
    func batch(of hashes: [String], limit: Int) async throws -> ByteBuffer {
        try await offload {
            var out = ByteBufferAllocator().buffer(capacity: 0)
            var seen = Set<String>()
            for hash in hashes where seen.insert(hash).inserted {
                guard let bytes = try self.readBlocking(hash) else { continue }
                if out.readableBytes > 0 && out.readableBytes + ChunkBatch.headerSize + bytes.count > limit { break }
                guard Hashing.sha256Hex(bytes) == hash, let raw = Hashing.rawBytes(hex: hash) else { continue }
                out.writeBytes(raw)
                out.writeInteger(UInt64(bytes.count), endianness: .big)
                out.writeBytes(bytes)
            }
            return out
        }
    }

    /// A whole chunk's bytes; nil if not stored.
    func readBlocking(_ hash: String) throws -> [UInt8]? {
        let path = path(for: hash)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw StoreIOError(operation: "open", path: path, code: errno).apiError
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreIOError(operation: "fstat", path: path, code: errno).apiError }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw StoreIOError(operation: "read", path: path, code: errno).apiError }
            if n == 0 { break }
            done += n
        }
        return done == bytes.count ? bytes : Array(bytes[0..<done])
    }
}

struct ChunkRead: Sendable {
    var bytes: ByteBuffer
    /// The byte range served, nil for the whole chunk.
    var range: Range<Int64>?
    var total: Int64
    var satisfiable: Bool
}
