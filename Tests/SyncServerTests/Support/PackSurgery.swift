import Foundation
import GRDB
import SyncCore
import Testing

@testable import SyncServerKit

/// Reaching into a chunk store's packs and index the way a disk fault or a crash would.
extension ChunkStore {
    func location(_ hash: String) async throws -> ChunkLocation {
        try #require(try await index.locations(of: [hash])[hash], "chunk \(hash) is not indexed")
    }

    func packPath(_ pack: PackID) -> String { packFiles.path(of: pack) }

    /// Pack ids and sizes on disk.
    func packsOnDisk() throws -> [PackID: Int64] { try packFiles.listBlocking() }

    /// Flips one byte of the chunk's bytes in its pack (bit rot).
    func rot(_ hash: String, at position: Int64 = 0) async throws {
        let location = try await location(hash)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: packPath(location.pack)))
        try handle.seek(toOffset: UInt64(location.offset + position))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(location.offset + position))
        try handle.write(contentsOf: [byte ^ 0x5a])
        try handle.close()
    }

    /// Removes the chunk's index row (its bytes stay in the pack).
    func forget(_ hash: String) async throws {
        let sqlite = try #require(index as? ChunkIndex, "this chunk store is not on SQLite")
        try await sqlite.pool.write { db in try db.execute(sql: "DELETE FROM chunk_index WHERE hash = ?", arguments: [hash]) }
    }
}

enum PackFile {
    static func truncate(_ path: String, to size: Int64) throws {
        guard Glibc.truncate(path, off_t(size)) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    static func append(_ path: String, _ bytes: [UInt8]) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: bytes)
        try handle.close()
    }

    static func size(_ path: String) throws -> Int64 {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64)
    }
}
