import Foundation

/// One pack copied by `storage copy`: checked record by record, written where the target
/// keeps packs, and its size checked there.
enum PackCopy {
    static func size(of path: String) throws -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw StoreIOError(operation: "stat", path: path, code: errno).apiError }
        return Int64(info.st_size)
    }

    /// Reads every record of the pack and checks it against its hash; how many there are.
    /// A damaged record or a torn tail stops the copy: nothing damaged is copied.
    static func verify(pack: PackID, path: String) throws -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreIOError(operation: "open pack", path: path, code: errno).apiError }
        defer { close(fd) }
        let scan: PackScan.Result
        do {
            scan = try PackScan.scan(fd: fd, pack: pack, path: path, trustedEnd: Int64.max)
        } catch {
            throw error.apiError
        }
        guard scan.damaged == 0, scan.validEnd == scan.fileSize else {
            throw APIError.invalidArgument(
                "pack \(path) is damaged (\(scan.damaged) chunk(s) do not match their hash, \(scan.fileSize - scan.validEnd) "
                    + "byte(s) after the last whole record): nothing of it was copied; start the old server once "
                    + "(it checks its packs) and run `sync-server storage check`, then copy again")
        }
        return scan.records.count
    }

    static func put(pack: PackID, file: String, size: Int64, into blobs: any BlobStore) async throws {
        do {
            if let local = blobs as? FilesystemBlobStore {
                try await local.threadPool.runIfActive { try copyFile(file, to: local.path(of: pack), directory: local.directory) }
            } else {
                try await blobs.put(pack: pack, file: file)
            }
            let landed = try await blobs.size(of: pack)
            guard landed == size else {
                throw APIError.internalError(
                    "pack \(blobs.name(of: pack)) is \(landed.map { "\($0) bytes" } ?? "missing") after the copy, \(size) bytes were written")
            }
        } catch let error as StoreIOError {
            throw error.apiError
        }
    }

    /// A durable copy: written to a temporary name, fsynced, renamed, the directory synced.
    static func copyFile(_ source: String, to destination: String, directory: String) throws {
        let bytes = try POSIX.readWhole(path: source)
        let temporary = destination + ".copying"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreIOError(operation: "create", path: temporary, code: errno) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { raw in try POSIX.writeAll(fd: fd, raw, at: 0, path: temporary) }
        try POSIX.dataSync(fd: fd, path: temporary)
        guard rename(temporary, destination) == 0 else { throw StoreIOError(operation: "rename", path: temporary, code: errno) }
        try POSIX.syncDirectory(directory)
    }
}
