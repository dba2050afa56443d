import Foundation
import GRDB

/// `conflicts`: paths where both sides changed; the local version was kept as a
/// conflict copy (`ConflictName`) and the remote one took the path.
public struct ConflictStore: Sendable {
    let pool: DatabasePool
    static let table = "conflicts"

    public func count(folder: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM conflicts WHERE folder_id = ?", arguments: [folder]) ?? 0
        }
    }

    public func list(folder: String) throws -> [(path: String, remoteRev: Int64, detectedAt: Date)] {
        try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT path, remote_rev, detected_at FROM conflicts WHERE folder_id = ? ORDER BY path",
                arguments: [folder]
            ).map { row in
                let path: String = try row.indexValue("path", table: Self.table)
                let detectedAt: Double = try row.indexValue("detected_at", table: Self.table, path: path)
                return (path, try row.indexValue("remote_rev", table: Self.table, path: path), Date(timeIntervalSince1970: detectedAt))
            }
        }
    }

    func record(folder: String, path: String, remoteRev: Int64, localHash: String, remoteHash: String) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO conflicts (folder_id, path, remote_rev, local_hash, remote_hash, detected_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [folder, path, remoteRev, localHash, remoteHash, Date().timeIntervalSince1970])
        }
    }
}
