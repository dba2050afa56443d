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
        /// `DaemonError.Code`'s raw value (nil for rows written before codes were kept).
        public var code: String?
        public var cause: String?
    }

    public func list(folder: String, limit: Int = 100) throws -> [Entry] {
        try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT path, message, retry_at, code, cause FROM path_errors WHERE folder_id = ? ORDER BY path LIMIT ?",
                arguments: [folder, limit]
            ).map { row in
                let path: String = try row.indexValue("path", table: Self.table)
                let retryAt: Double? = try row.indexValue("retry_at", table: Self.table, path: path)
                return Entry(
                    path: path, message: try row.indexValue("message", table: Self.table, path: path),
                    retryAt: retryAt.map { Date(timeIntervalSince1970: $0) },
                    code: try row.indexValue("code", table: Self.table, path: path),
                    cause: try row.indexValue("cause", table: Self.table, path: path))
            }
        }
    }

    /// Which side of the sync an error came from.
    enum Origin: String {
        /// A push of the path (the journal's outcome): pushing it again is a retry.
        case push
        /// A remote entry that could not be applied (kept for a retry, or refused).
        case remote
    }

    /// Shows a per-path error that no retry will clear by itself.
    func show(folder: String, path: String, error: DaemonError, origin: Origin) throws {
        try pool.write { db in try show(folder: folder, path: path, error: error, retryAt: nil, origin: origin, in: db) }
    }

    /// The row shows the error's message (with its own path when that is another one, a
    /// parent for instance), its code and its cause.
    func show(folder: String, path: String, error: DaemonError, retryAt: Date?, origin: Origin, in db: Database) throws {
        let message = error.path == nil || error.path == path ? error.message : error.description
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO path_errors (folder_id, path, message, retry_at, code, cause, origin) VALUES (?, ?, ?, ?, ?, ?, ?)
            """
        ).execute(arguments: [folder, path, message, retryAt?.timeIntervalSince1970, error.code.rawValue, error.cause, origin.rawValue])
    }

    /// Whether the folder shows any path error (none: nothing to clear).
    func any(folder: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM path_errors WHERE folder_id = ?)"), arguments: [folder]) ?? false
    }

    /// Clears `path`'s error only if it has `code` (another error shown there since stays).
    func clear(folder: String, path: String, code: DaemonError.Code, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM path_errors WHERE folder_id = ? AND path = ? AND code = ?")
            .execute(arguments: [folder, path, code.rawValue])
    }

    /// Clears `path`'s error unless it has `code` (one only something else settles).
    func clear(folder: String, path: String, unless code: DaemonError.Code, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM path_errors WHERE folder_id = ? AND path = ? AND code IS NOT ?")
            .execute(arguments: [folder, path, code.rawValue])
    }

    func clear(folder: String, path: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM path_errors WHERE folder_id = ? AND path = ?").execute(arguments: [folder, path])
    }
}
