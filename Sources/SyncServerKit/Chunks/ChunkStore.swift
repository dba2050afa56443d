import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SyncCore

/// Content-addressed chunk files: `chunks/ab/cd/<hash>`, written to
/// `chunks/tmp` and renamed into place (no per-file fsync). Before metadata
/// that references new chunks is committed, `syncIfNeeded()` makes them
/// durable with one `syncfs(2)`. Blocking file I/O runs on a NIO thread pool,
/// never on an event loop.
final class ChunkStore: Sendable {
    let root: String
    let tmpDir: String
    private let threadPool: NIOThreadPool
    private let state = NIOLockedValueBox(SyncState())

    struct SyncState {
        /// Chunks renamed into place so far (monotonic).
        var written: UInt64 = 0
        /// `written` as of the last completed syncfs.
        var synced: UInt64 = 0
        var syncCalls = 0
    }

    init(root: String, threadPool: NIOThreadPool = .singleton) throws {
        self.root = root
        self.tmpDir = root + "/tmp"
        self.threadPool = threadPool
        do {
            try POSIX.makeDirectories(tmpDir)
        } catch {
            throw APIError.internalError("cannot create chunk directory: \(error)", cause: error)
        }
        // Leftovers of interrupted uploads.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmpDir)) ?? [] {
            unlink(tmpDir + "/" + name)
        }
    }

    func path(for hash: String) -> String {
        let chars = Array(hash.utf8)
        let a = String(decoding: chars[0..<2], as: UTF8.self), b = String(decoding: chars[2..<4], as: UTF8.self)
        return "\(root)/\(a)/\(b)/\(hash)"
    }

    /// Number of syncfs calls made (for tests and metrics).
    var syncCalls: Int { state.withLockedValue { $0.syncCalls } }

    /// Runs blocking work on the thread pool.
    func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threadPool.runIfActive(body)
    }

    // MARK: Queries

    /// Size of each stored chunk among `hashes` (valid hex); absent ones are left out.
    func sizes(of hashes: [String]) async throws -> [String: Int64] {
        try await offload {
            var sizes: [String: Int64] = [:]
            for hash in hashes {
                if let size = self.sizeBlocking(hash) { sizes[hash] = size }
            }
            return sizes
        }
    }

    /// The hashes among `hashes` that are not stored, in request order, without duplicates.
    func missing(_ hashes: [String]) async throws -> [String] {
        try await offload {
            var seen = Set<String>()
            return hashes.filter { seen.insert($0).inserted && self.sizeBlocking($0) == nil }
        }
    }

    func sizeBlocking(_ hash: String) -> Int64? {
        var info = stat()
        return stat(path(for: hash), &info) == 0 ? Int64(info.st_size) : nil
    }

    // MARK: Durability

    /// One `syncfs` if any chunk was written since the last one completed.
    func syncIfNeeded() async throws {
        let target = state.withLockedValue { $0.written > $0.synced ? $0.written : nil }
        guard let target else { return }
        let root = self.root
        try await offload {
            let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw StoreIOError(operation: "open", path: root, code: errno) }
            defer { close(fd) }
            guard POSIX.syncFileSystem(fd: fd) == 0 else {
                throw StoreIOError(operation: "syncfs", path: root, code: errno)
            }
        }
        state.withLockedValue {
            $0.synced = max($0.synced, target)
            $0.syncCalls += 1
        }
    }

    func noteWritten() {
        state.withLockedValue { $0.written += 1 }
    }
}
