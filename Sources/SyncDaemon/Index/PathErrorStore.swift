import Foundation
import GRDB

/// `path_errors`: what `syncctl status` shows per path — a failure that a retry (at
/// `retryAt`) may clear, or one that stays until the path changes again. Written by the
/// journal and the remote retries in their own transactions (the `in db` functions).
public struct PathErrorStore: Sendable {
    let pool: DatabasePool
    static let table = "path_errors"

    public struct Entry: Sendable, Equatable {
        public var path: String
        public var message: String
        public var retryAt: Date?
    }

    public func list(folder: String, limit: Int = 100) throws -> [Entry] {
        try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT path, message, retry_at FROM path_errors WHERE folder_id = ? ORDER BY path LIMIT ?",
                arguments: [folder, limit]
            ).map { row in
                let path: String = try row.indexValue("path", table: Self.table)
                let retryAt: Double? = try row.indexValue("retry_at", table: Self.table, path: path)
                return Entry(
                    path: path, message: try row.indexValue("message", table: Self.table, path: path),
                    retryAt: retryAt.map { Date(timeIntervalSince1970: $0) })
            }
        }
    }

    /// Shows a per-path error that no retry will clear by itself.
    func show(folder: String, path: String, message: String) throws {
        try pool.write { db in try show(folder: folder, path: path, message: message, retryAt: nil, in: db) }
    }

    func show(folder: String, path: String, message: String, retryAt: Date?, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO path_errors (folder_id, path, message, retry_at) VALUES (?, ?, ?, ?)
            """
        ).execute(arguments: [folder, path, message, retryAt?.timeIntervalSince1970])
    }

    func clear(folder: String, path: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM path_errors WHERE folder_id = ? AND path = ?").execute(arguments: [folder, path])
    }
}
