import Foundation
import GRDB

extension IndexStore {
    public struct StoredError: Sendable, Equatable {
        public var path: String
        public var message: String
        public var retryAt: Date?
    }

    public func pathErrors(folder: String, limit: Int = 100) throws -> [StoredError] {
        try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT path, message, retry_at FROM path_errors WHERE folder_id = ? ORDER BY path LIMIT ?",
                arguments: [folder, limit]
            ).map { row in
                StoredError(
                    path: row["path"], message: row["message"],
                    retryAt: (row["retry_at"] as Double?).map { Date(timeIntervalSince1970: $0) })
            }
        }
    }

    public func conflictCount(folder: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM conflicts WHERE folder_id = ?", arguments: [folder]) ?? 0
        }
    }

    public func conflicts(folder: String) throws -> [(path: String, remoteRev: Int64, detectedAt: Date)] {
        try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT path, remote_rev, detected_at FROM conflicts WHERE folder_id = ? ORDER BY path",
                arguments: [folder]
            ).map { ($0["path"], $0["remote_rev"], Date(timeIntervalSince1970: $0["detected_at"])) }
        }
    }

    func recordConflict(folder: String, path: String, remoteRev: Int64, localHash: String, remoteHash: String) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO conflicts (folder_id, path, remote_rev, local_hash, remote_hash, detected_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [folder, path, remoteRev, localHash, remoteHash, Date().timeIntervalSince1970])
        }
    }

    public struct FolderState: Sendable, Equatable {
        public var remoteCursor: Int64 = 0
        public var paused = false
        public var lastSyncedAt: Date?
    }

    public func folderState(folder: String) throws -> FolderState {
        try pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM folder_state WHERE folder_id = ?", arguments: [folder])
            else { return FolderState() }
            return FolderState(
                remoteCursor: row["remote_cursor"], paused: row["paused"],
                lastSyncedAt: (row["last_synced_at"] as Double?).map { Date(timeIntervalSince1970: $0) })
        }
    }

    public func setPaused(folder: String, _ paused: Bool) throws {
        try setFolderState(folder: folder, column: "paused", paused)
    }

    public func setLastSynced(folder: String, at date: Date) throws {
        try setFolderState(folder: folder, column: "last_synced_at", date.timeIntervalSince1970)
    }

    /// Upserts one column of `folder_state` (column names are ours, never input).
    func setFolderState(folder: String, column: String, _ value: some DatabaseValueConvertible) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO folder_state (folder_id, \(column)) VALUES (?, ?)
                    ON CONFLICT (folder_id) DO UPDATE SET \(column) = excluded.\(column)
                    """, arguments: [folder, value])
        }
    }
}
