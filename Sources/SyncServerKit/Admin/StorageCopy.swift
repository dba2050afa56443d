import Foundation
import GRDB
import Logging

/// `sync-server storage copy --from OLD.toml --to NEW.toml`: fills a new data directory
/// (and its blob store, a bucket or `packs/`) from a stopped server's, so a server that
/// started on the embedded defaults moves to object storage without clients uploading
/// again. The source is only read (and checked as a start would); every pack is read and
/// every record in it checked against its hash before it is copied, and its size checked
/// where it landed. Resumable: packs the target already holds at the same size are not
/// copied again, the metadata is copied anew each run. The target data directory must be
/// new (or one an unfinished copy left, marked by its `copy-in-progress` file).
public enum StorageCopy {
    public struct Report: Sendable {
        public var packsCopied = 0
        public var packsAlreadyThere = 0
        public var bytesCopied: Int64 = 0
        public var chunksVerified = 0
        public var target = ""

        public var summary: String {
            let mib = String(format: "%.1f", Double(bytesCopied) / 1_048_576)
            return "storage copy: metadata copied; \(packsCopied) pack(s) copied (\(mib) MiB, \(chunksVerified) chunk(s) verified), "
                + "\(packsAlreadyThere) already there; start the server with the new config (\(target))"
        }
    }

    public static func run(from source: ServerSettings, to target: ServerSettings, logger: Logger) async throws -> Report {
        guard source.metadata == .sqlite else {
            throw APIError.invalidArgument(
                "storage copy reads a SQLite data directory: the source config keeps its metadata in \(source.metadata) "
                    + "(move a PostgreSQL database with pg_dump and pg_restore)")
        }
        guard case .filesystem = source.blobs else {
            throw APIError.invalidArgument(
                "storage copy reads the packs of a data directory: the source config must have blobs = \"filesystem\", not \(source.blobs)")
        }
        guard URL(fileURLWithPath: source.dataDir).standardized != URL(fileURLWithPath: target.dataDir).standardized else {
            throw APIError.invalidArgument(
                "both configs name the data directory \(source.dataDir): give the new config a data_dir of its own (the old one stays as it is)")
        }
        guard access(source.metadataPath, F_OK) == 0 else {
            throw APIError.invalidArgument("\(source.metadataPath) does not exist: is \(source.dataDir) a server's data_dir?")
        }
        let sourceLock = try DataDirectoryLock.acquire(dataDir: source.dataDir, purpose: "storage copy")
        let targetLock = try DataDirectoryLock.acquire(dataDir: target.dataDir, purpose: "storage copy")
        defer { withExtendedLifetime((sourceLock, targetLock)) {} }
        let metadataTarget = try await MetadataTarget.open(target, logger: logger)
        do {
            let report = try await copy(from: source, to: target, metadata: metadataTarget, logger: logger)
            await metadataTarget.close()
            return report
        } catch {
            await metadataTarget.close()
            throw error
        }
    }

    private static func copy(
        from source: ServerSettings, to target: ServerSettings, metadata metadataTarget: MetadataTarget, logger: Logger
    ) async throws -> Report {
        // The source as a start would leave it: torn tails cut, the last pack sealed.
        let metadata = try MetadataStore(path: source.metadataPath)
        let chunks = try await source.openChunkStore(index: ChunkIndex(pool: metadata.pool), logger: logger)
        try await chunks.recover()
        try await metadataTarget.begin(from: source.dataDir)
        try await metadataTarget.copy(metadata)

        let targetBlobs: any BlobStore = try targetStore(target)
        let present = try await targetBlobs.list()
        var report = Report(target: target.blobs == .filesystem ? target.packsPath : "\(target.blobs)")
        for (pack, row) in try await chunks.index.packRows().sorted(by: { $0.key < $1.key }) where !row.retired {
            let path = chunks.packFiles.path(of: pack)
            let size = try PackCopy.size(of: path)
            if present[pack] == size {
                report.packsAlreadyThere += 1
                continue
            }
            report.chunksVerified += try PackCopy.verify(pack: pack, path: path)
            try await PackCopy.put(pack: pack, file: path, size: size, into: targetBlobs)
            report.packsCopied += 1
            report.bytesCopied += size
            logger.debug("copied pack \(path) to \(targetBlobs.name(of: pack))")
        }
        try await metadataTarget.end(packLocation: ChunkStore.packLocation(packsDir: target.packsPath, objectStore: target.objectStore))
        return report
    }

    /// The whole database, through SQLite's backup API (a consistent copy).
    static func copyMetadata(_ metadata: MetadataStore, to path: String) throws {
        for suffix in ["", "-wal", "-shm"] where unlink(path + suffix) != 0 && errno != ENOENT {
            throw StoreIOError(operation: "unlink", path: path + suffix, code: errno).apiError
        }
        do {
            let copy = try DatabaseQueue(path: path)
            try metadata.pool.backup(to: copy)
            try copy.close()
        } catch {
            throw APIError.internalError("cannot copy the metadata database to \(path): \(error)", cause: error)
        }
    }

    static func targetStore(_ target: ServerSettings) throws -> any BlobStore {
        let local = FilesystemBlobStore(directory: target.packsPath, threadPool: .singleton)
        do {
            try POSIX.makeDirectories(target.packsPath)
        } catch {
            throw error.apiError
        }
        guard let client = target.objectStore else { return local }
        return S3BlobStore(client: client, local: local)
    }
}
