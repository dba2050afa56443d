import Foundation
import NIOPosix

/// Where packs are kept: the seam between the chunk store and its storage. Packs are
/// written locally by `PackWriter` (appends need a file); once sealed, a pack is handed to
/// the blob store and never changes. Chunks are served with ranged reads of packs.
///
/// The filesystem implementation keeps packs where they were written, so `put` only
/// checks. The S3 implementation (`S3BlobStore`) uploads each sealed pack as an object and
/// deletes the local file; there every append is a pack of its own, sealed and uploaded
/// before its chunks are indexed (docs/decisions/0020-packs-in-object-storage.md).
protocol BlobStore: Sendable {
    /// Whether sealed packs leave this machine: then every append is sealed and put before
    /// it is indexed, so the index names only packs the store holds.
    var isRemote: Bool { get }
    /// How a pack is named in messages: a file path or an `s3://` URL.
    func name(of pack: PackID) -> String
    /// Takes the sealed pack `pack`, whose bytes are the durable local file `file`.
    func put(pack: PackID, file: String) async throws
    /// The bytes of each of `ranges` of `pack`, in order; a range past the pack's end is an error.
    func read(pack: PackID, ranges: [Range<Int64>]) async throws -> [[UInt8]]
    func delete(pack: PackID) async throws
    /// Every pack held, with its size in bytes.
    func list() async throws -> [PackID: Int64]
    /// The size of one pack as stored; nil if the store does not hold it.
    func size(of pack: PackID) async throws -> Int64?
}

/// Packs as files in one directory (`data_dir/packs`), the same one `PackWriter` appends in.
/// Blocking work runs on a NIO thread pool, never on an event loop.
struct FilesystemBlobStore: BlobStore {
    let directory: String
    let threadPool: NIOThreadPool

    func path(of pack: PackID) -> String { directory + "/" + PackName.file(pack) }

    var isRemote: Bool { false }

    func name(of pack: PackID) -> String { path(of: pack) }

    /// Whether the pack's file is here.
    func holds(_ pack: PackID) -> Bool { access(path(of: pack), F_OK) == 0 }

    func put(pack: PackID, file: String) async throws {
        guard file == path(of: pack) else {
            throw StoreIOError(operation: "put pack (the filesystem store keeps packs where they are written)", path: file, code: EXDEV)
        }
    }

    func read(pack: PackID, ranges: [Range<Int64>]) async throws -> [[UInt8]] {
        try await threadPool.runIfActive { try readBlocking(pack: pack, ranges: ranges) }
    }

    func readBlocking(pack: PackID, ranges: [Range<Int64>]) throws(StoreIOError) -> [[UInt8]] {
        let path = path(of: pack)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreIOError(operation: "open pack", path: path, code: errno) }
        defer { close(fd) }
        var out: [[UInt8]] = []
        out.reserveCapacity(ranges.count)
        for range in ranges {
            out.append(try POSIX.readExactly(fd: fd, offset: range.lowerBound, count: Int(range.count), path: path))
        }
        return out
    }

    func delete(pack: PackID) async throws {
        try await threadPool.runIfActive { try deleteBlocking(pack: pack) }
    }

    /// Unlinks the pack (gone already is fine) and makes that durable in the directory.
    func deleteBlocking(pack: PackID) throws(StoreIOError) {
        let path = path(of: pack)
        guard unlink(path) == 0 || errno == ENOENT else { throw StoreIOError(operation: "unlink", path: path, code: errno) }
        try POSIX.syncDirectory(directory)
    }

    func list() async throws -> [PackID: Int64] {
        try await threadPool.runIfActive { try listBlocking() }
    }

    func size(of pack: PackID) async throws -> Int64? {
        var info = stat()
        guard stat(path(of: pack), &info) == 0 else {
            if errno == ENOENT { return nil }
            throw StoreIOError(operation: "stat", path: path(of: pack), code: errno)
        }
        return Int64(info.st_size)
    }

    func listBlocking() throws(StoreIOError) -> [PackID: Int64] {
        var packs: [PackID: Int64] = [:]
        for name in try POSIX.names(in: directory) {
            guard let id = PackName.id(of: name) else { continue }
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else {
                throw StoreIOError(operation: "stat", path: directory + "/" + name, code: errno)
            }
            packs[id] = Int64(info.st_size)
        }
        return packs
    }
}
