import Foundation
import GRDB

/// What `sync-server status` and `folder remove` say about the server's data.
extension ServerAdmin {
    public struct FolderSummary: Sendable, Equatable, Codable {
        public var id: String
        /// The folder's newest revision.
        public var rev: Int64
        /// Live files (not directories, not deleted) and their bytes.
        public var files: Int
        public var bytes: Int64
        /// Names of the devices granted it that are not revoked.
        public var devices: [String]
    }

    public struct Summary: Sendable, Equatable, Codable {
        public var folders: [FolderSummary]
        public var devices: Int
        public var revokedDevices: Int
        /// Chunks indexed and packs known, with the packs' bytes (what the blob store holds).
        public var chunks: Int
        public var packs: Int
        public var packBytes: Int64
    }

    public func summary() async throws -> Summary {
        try await metadata.pool.read { db in
            let folders = try Row.fetchAll(
                db,
                sql: """
                    SELECT f.id, f.rev,
                        (SELECT count(*) FROM entries e WHERE e.folder_id = f.id AND e.deleted = 0 AND e.kind = 'file'),
                        (SELECT coalesce(sum(size), 0) FROM entries e WHERE e.folder_id = f.id AND e.deleted = 0 AND e.kind = 'file')
                    FROM folders f ORDER BY f.id
                    """
            ).map { row in
                FolderSummary(id: row[0], rev: row[1], files: row[2], bytes: row[3], devices: [])
            }
            var granted: [String: [String]] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT g.folder_id, d.name FROM grants g JOIN devices d ON d.id = g.device_id
                    WHERE d.revoked_at IS NULL ORDER BY d.name
                    """)
            {
                granted[row[0], default: []].append(row[1])
            }
            let devices = try Int.fetchOne(db, sql: "SELECT count(*) FROM devices") ?? 0
            let revoked = try Int.fetchOne(db, sql: "SELECT count(*) FROM devices WHERE revoked_at IS NOT NULL") ?? 0
            let chunks = try Int.fetchOne(db, sql: "SELECT count(*) FROM chunk_index") ?? 0
            let packs = try Row.fetchOne(db, sql: "SELECT count(*), coalesce(sum(durable_length), 0) FROM packs WHERE retired = 0")
            return Summary(
                folders: folders.map { var folder = $0; folder.devices = granted[$0.id] ?? []; return folder },
                devices: devices, revokedDevices: revoked, chunks: chunks, packs: packs?[0] ?? 0, packBytes: packs?[1] ?? 0)
        }
    }

    /// Deletes a folder with everything the server holds of it: its entries, its history,
    /// its grants and remembered commit replies (its chunks are collected by the next storage
    /// rounds once nothing else references them). Devices keep their copies. Returns what it held.
    public func removeFolder(_ id: String) async throws -> FolderSummary {
        try Identifiers.validateFolderID(id)
        guard let folder = try await summary().folders.first(where: { $0.id == id }) else {
            throw APIError.notFound("no folder '\(id)'")
        }
        try await metadata.pool.write { db in
            try db.execute(sql: "DELETE FROM folders WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { throw APIError.notFound("no folder '\(id)'") }
        }
        return folder
    }
}
