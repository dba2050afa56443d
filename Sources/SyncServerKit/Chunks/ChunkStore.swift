import Foundation
import Logging
import NIOCore
import NIOPosix
import ObjectStorage
import SyncCore

/// Content-addressed chunks kept in pack files (`data_dir/packs/<id>.pack`, appended by one
/// `PackWriter`), found through the chunk index in the metadata database. An upload is
/// appended, fsynced once (one `fdatasync` per upload request, not per chunk), and only
/// then indexed: whatever the index holds is on disk, so a commit that checked its chunks
/// against the index references only durable chunks. Reads are ranged reads of packs,
/// through the `BlobStore` seam. Blocking file I/O runs on a NIO thread pool, never on an
/// event loop.
///
/// Before serving, `recover()` checks the packs the last run left open (cutting a torn
/// tail) and imports chunk files of the old layout (`chunks/ab/cd/<hash>`); with packs in
/// object storage, `recoverRemote()` then uploads what is still local and makes the index
/// and the bucket agree.
final class ChunkStore: Sendable {
    let packsDir: String
    /// Where the chunk files of the old layout are (`data_dir/chunks`).
    let legacyRoot: String
    let index: any ChunkIndexBackend
    /// The local pack directory: every pack while it is written, and all of them unless
    /// they are kept in object storage.
    let packFiles: FilesystemBlobStore
    /// Where sealed packs are kept: `packFiles`, or an `S3BlobStore`.
    let blobs: any BlobStore
    let writer: PackWriter
    let logger: Logger
    private let threadPool: NIOThreadPool

    /// Packs are sealed once the next upload would take them past this (~64 MiB).
    static let defaultRotation: Int64 = 64 << 20

    /// Where the packs are, as the index records it (`ChunkIndexBackend.claimPacks`): the bucket
    /// and prefix, or this host's data directory.
    static func packLocation(packsDir: String, objectStore: S3Client?) -> String {
        objectStore.map { "\($0.location.description) at \($0.location.endpoint)" } ?? "\(POSIX.hostName()):\(packsDir)"
    }

    /// Opens the pack files in `packsDir` (and the bucket, with `objectStore`) over `index`.
    /// Recovery is separate (`recover()`, `recoverRemote()`), run before serving.
    static func open(
        packsDir: String, legacyRoot: String, index: any ChunkIndexBackend, rotateAt: Int64 = defaultRotation,
        objectStore: S3Client? = nil,
        logger: Logger = Logger(label: "sync-server.chunks", factory: { _ in SwiftLogNoOpLogHandler() }),
        threadPool: NIOThreadPool = .singleton
    ) async throws -> ChunkStore {
        let files = FilesystemBlobStore(directory: packsDir, threadPool: threadPool)
        let nextID: PackID
        do {
            try POSIX.makeDirectories(packsDir)
            try await index.claimPacks(at: packLocation(packsDir: packsDir, objectStore: objectStore))
            nextID = try await index.firstPackID(filesKnown: try files.listBlocking().keys.max() ?? 0)
        } catch let error as APIError where error.code == .invalidArgument {
            throw error
        } catch {
            throw APIError.internalError("cannot open the chunk store in \(packsDir): \(error)", cause: error)
        }
        return ChunkStore(
            packsDir: packsDir, legacyRoot: legacyRoot, index: index, files: files, nextID: nextID, rotateAt: rotateAt,
            objectStore: objectStore, logger: logger, threadPool: threadPool)
    }

    private init(
        packsDir: String, legacyRoot: String, index: any ChunkIndexBackend, files: FilesystemBlobStore, nextID: PackID,
        rotateAt: Int64, objectStore: S3Client?, logger: Logger, threadPool: NIOThreadPool
    ) {
        self.packsDir = packsDir
        self.legacyRoot = legacyRoot
        self.index = index
        self.packFiles = files
        self.blobs = objectStore.map { S3BlobStore(client: $0, local: files) } ?? files
        // A new pack at every start: packs of earlier runs are only ever read.
        self.writer = PackWriter(
            directory: packsDir, rotateAt: rotateAt, nextID: nextID, sealsEveryAppend: objectStore != nil)
        self.logger = logger
        self.threadPool = threadPool
    }

    var syncCalls: Int { writer.syncs }

    /// Runs blocking work on the thread pool.
    func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threadPool.runIfActive(body)
    }

    // MARK: Queries (the index, never the file system)

    /// Size of each stored chunk among `hashes` (valid hex); absent ones are left out.
    func sizes(of hashes: [String]) async throws -> [String: Int64] {
        try await index.locations(of: hashes).mapValues(\.length)
    }

    /// The hashes among `hashes` that are not stored, in request order, without duplicates.
    func missing(_ hashes: [String]) async throws -> [String] {
        let found = try await index.locationsRenewing(hashes)
        var seen = Set<String>()
        return hashes.filter { seen.insert($0).inserted && found[$0] == nil }
    }

    // MARK: Start-up

    /// Checks the packs and imports old-layout chunk files; call once, before serving, with
    /// no other process writing to this data directory.
    func recover() async throws {
        let started = ContinuousClock.now
        let packs = try await PackRecovery.run(files: packFiles, index: index, remote: blobs.isRemote, logger: logger)
        let legacy = try await LegacyImport.run(root: legacyRoot, store: self)
        if packs.verified > 0 || packs.retiredRemoved > 0 || legacy.imported > 0 || legacy.damaged > 0 {
            logger.info(
                "chunk store checked",
                metadata: [
                    "packs_verified": "\(packs.verified)", "retired_packs_removed": "\(packs.retiredRemoved)",
                    "torn_bytes_cut": "\(packs.truncatedBytes)",
                    "chunks_dropped": "\(packs.dropped.count)", "legacy_imported": "\(legacy.imported)",
                    "legacy_damaged": "\(legacy.damaged)", "took": "\(ContinuousClock.now - started)",
                ])
        }
    }
}
