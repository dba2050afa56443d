import Foundation
import NIOPosix
import ObjectStorage

/// Packs as objects `PREFIX/packs/<id>.pack` in an S3-compatible bucket. A pack is written
/// locally first (`local`, the directory `PackWriter` appends in) and sealed after each
/// append; `put` uploads it (in parts when big) and only then deletes the local file.
/// Reads go to the local file while there is one (a pack between its append and its
/// upload, or left by a crash until start-up recovery puts it), else to ranged GETs, with
/// nearby ranges of one pack fetched in one request.
struct S3BlobStore: BlobStore {
    let client: S3Client
    let local: FilesystemBlobStore
    /// Ranges of one pack closer than this are read with one GET.
    var mergeGap: Int64 = 256 << 10

    static let folder = "packs/"

    var isRemote: Bool { true }

    func key(of pack: PackID) -> String { client.key(Self.folder + PackName.file(pack)) }

    func name(of pack: PackID) -> String { client.target(key(of: pack)) }

    func put(pack: PackID, file: String) async throws {
        let local = self.local
        let bytes = try await local.threadPool.runIfActive { try POSIX.readWhole(path: file) }
        do {
            try await client.upload(key: key(of: pack), bytes: bytes)
        } catch let error as S3Error {
            throw StoreIOError(s3: error)
        }
        try await local.threadPool.runIfActive { try local.deleteBlocking(pack: pack) }
    }

    func read(pack: PackID, ranges: [Range<Int64>]) async throws -> [[UInt8]] {
        if local.holds(pack) {
            do {
                return try await local.read(pack: pack, ranges: ranges)
            } catch let error as StoreIOError where error.code == ENOENT {
                // Uploaded and deleted meanwhile: read the object.
            }
        }
        do {
            return try await client.get(key: key(of: pack), ranges: ranges, mergeGap: mergeGap)
        } catch let error as S3Error {
            throw StoreIOError(s3: error)
        }
    }

    func delete(pack: PackID) async throws {
        do {
            try await client.delete(key: key(of: pack))
        } catch let error as S3Error {
            throw StoreIOError(s3: error)
        }
        let local = self.local
        try await local.threadPool.runIfActive { try local.deleteBlocking(pack: pack) }
    }

    /// The packs in the bucket and the local ones (not yet uploaded), with their sizes.
    func list() async throws -> [PackID: Int64] {
        try await remote().merging(try await local.list()) { remote, _ in remote }
    }

    /// The size of the pack's object in the bucket (a local copy not yet uploaded does not count).
    func size(of pack: PackID) async throws -> Int64? {
        do {
            return try await client.size(key: key(of: pack))
        } catch let error as S3Error {
            throw StoreIOError(s3: error)
        }
    }

    /// The packs in the bucket only.
    func remote() async throws -> [PackID: Int64] {
        try await remoteObjects().mapValues(\.size)
    }

    /// The packs in the bucket, as listed (sizes and when each was written).
    func remoteObjects() async throws -> [PackID: S3Client.Object] {
        let objects: [S3Client.Object]
        do {
            objects = try await client.list(prefix: Self.folder)
        } catch let error as S3Error {
            throw StoreIOError(s3: error)
        }
        var packs: [PackID: S3Client.Object] = [:]
        let start = client.key(Self.folder)
        for object in objects where object.key.hasPrefix(start) {
            guard let id = PackName.id(of: String(object.key.dropFirst(start.count))) else { continue }
            packs[id] = object
        }
        return packs
    }
}

extension StoreIOError {
    /// An object store's failure in the chunk store's error shape: a missing object reads
    /// as ENOENT (a pack compaction deleted: the chunk is looked up again), anything else as EIO.
    init(s3 error: S3Error) {
        self.init(operation: error.operation, path: error.target, code: error.kind == .notFound ? ENOENT : EIO, detail: error.description)
    }
}
