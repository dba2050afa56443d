import Foundation
import GRDB

/// The server's metadata: folders, devices, grants, current entries and
/// their history, in one SQLite file (WAL, so the admin CLI can write while
/// the server runs; a busy timeout absorbs the short overlaps).
final class MetadataStore: Sendable {
    let pool: DatabasePool

    init(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.foreignKeysEnabled = true
        config.label = "sync-server.metadata"
        config.prepareDatabase { db in
            // WAL + FULL: a commit is on disk before it is acknowledged (survives a power loss).
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            pool = try DatabasePool(path: path, configuration: config)
            // GRDB sets NORMAL on the writer when it enables WAL, after prepareDatabase.
            try pool.barrierWriteWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Migrations.migrator.migrate(pool)
        } catch {
            throw APIError.internalError("cannot open metadata database \(path): \(error)", cause: error)
        }
    }

    /// Folders, devices and grants.
    var accounts: AccountStore { AccountStore(pool: pool) }

    /// Migrations recorded as applied in this database, in the order they run.
    func appliedMigrations() throws -> [String] {
        try pool.read { db in try Migrations.migrator.appliedMigrations(db) }
    }

    /// The folder's current revision, nil if it does not exist.
    func folderRev(_ folder: String) async throws -> Int64? {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT rev FROM folders WHERE id = ?", arguments: [folder])
        }
    }

    static func nowSeconds() -> Int64 { Int64(Date().timeIntervalSince1970) }
}
