import GRDB
import SyncCore

/// `base`: per path the last state both sides agreed on, with its rev and mode.
/// Tombstones stay at their revs (a stale feed entry for an old path finds it seen).
public struct BaseStore: Sendable {
    let pool: DatabasePool
    static let table = "base"

    public func record(folder: String, path: String) throws -> BaseRecord? {
        try pool.read { db in try record(folder: folder, path: path, in: db) }
    }

    /// Live base entries at `path` or below it (what a vanished directory takes with it).
    public func live(folder: String, under path: String) throws -> [BaseRecord] {
        try pool.read { db in try live(folder: folder, under: path, in: db) }
    }

    func live(folder: String, under path: String, in db: Database) throws -> [BaseRecord] {
        try Row.fetchAll(
            db, sql: "SELECT \(Self.columns) FROM base WHERE \(IndexSQL.subtree) AND deleted = 0", arguments: IndexSQL.subtree(folder: folder, path)
        ).map(Self.decode)
    }

    /// `live(folder:under:)` of each of `paths`, from one snapshot.
    func live(folder: String, under paths: [String]) throws -> [String: [BaseRecord]] {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(Self.columns) FROM base WHERE \(IndexSQL.subtree) AND deleted = 0")
            var live: [String: [BaseRecord]] = [:]
            for path in paths {
                live[path] = try Row.fetchAll(statement, arguments: IndexSQL.subtree(folder: folder, path)).map(Self.decode)
            }
            return live
        }
    }

    func record(folder: String, path: String, in db: Database) throws -> BaseRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.columns) FROM base WHERE folder_id = ? AND path = ?"), arguments: [folder, path])
            .map(Self.decode)
    }

    func records(folder: String, paths: ArraySlice<String>, in db: Database) throws -> [BaseRecord] {
        let (these, arguments) = IndexSQL.paths(paths, in: folder)
        let statement = try IndexSQL.statement(db, sql: "SELECT \(Self.columns) FROM base WHERE \(these)", count: paths.count)
        return try Row.fetchAll(statement, arguments: arguments).map(Self.decode)
    }

    /// The revs recorded at `paths` (tombstones included; a path without a row is absent), in
    /// few queries: a push batch's outcome checks each of its paths (`RecordStore.apply`).
    func revs(folder: String, paths: [String], in db: Database) throws -> [String: Int64] {
        var revs: [String: Int64] = [:]
        for slice in IndexSQL.slices(paths) {
            let (these, arguments) = IndexSQL.paths(slice, in: folder)
            let rows = try Row.fetchCursor(db, sql: "SELECT path, rev FROM base WHERE \(these)", arguments: arguments)
            while let row = try rows.next() {
                let path: String = try row.indexValue(at: 0, "path", table: Self.table)
                revs[path] = try row.indexValue(at: 1, "rev", table: Self.table, path: path)
            }
        }
        return revs
    }

    /// The rev recorded at `path`, if any (tombstones included).
    func rev(folder: String, path: String, in db: Database) throws -> Int64? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT rev FROM base WHERE folder_id = ? AND path = ?"), arguments: [folder, path]
        ).map { try $0.indexValue("rev", table: Self.table, path: path) }
    }

    func put(folder: String, _ records: [BaseRecord], in db: Database) throws {
        let put = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO base (folder_id, path, kind, rev, content_hash, deleted, mode) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for b in records {
            try put.execute(arguments: [folder, b.path, b.kind.rawValue, b.rev, b.contentHash, b.deleted, b.mode.map { Int64($0) }])
        }
    }

    func remove(folder: String, path: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM base WHERE folder_id = ? AND path = ?").execute(arguments: [folder, path])
    }

    /// A committed move: whatever was at `to` goes, and the live records at `from` and
    /// below it become tombstones at their revs (the mover writes the new bases: `MoveRecords`).
    func moveAway(folder: String, from: String, to: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM base WHERE \(IndexSQL.subtree)", arguments: IndexSQL.subtree(folder: folder, to))
        try db.execute(
            sql: "UPDATE base SET deleted = 1 WHERE \(IndexSQL.subtree) AND deleted = 0",
            arguments: IndexSQL.subtree(folder: folder, from))
    }

    /// The columns `decode` reads, in its order: `SELECT \(columns) FROM base`.
    static let columns = "path, kind, rev, content_hash, deleted, mode"

    /// A row of `columns`.
    static func decode(_ row: Row) throws -> BaseRecord {
        let path: String = try row.indexValue(checkedAt: 0, "path", table: table)
        func value<Value: DatabaseValueConvertible>(_ index: Int, _ column: String) throws -> Value {
            try row.indexValue(checkedAt: index, column, table: table, path: path)
        }
        let mode: Int64? = try value(5, "mode")
        return BaseRecord(
            path: path, kind: try IndexValue.kind(value(1, "kind"), table: table, path: path), rev: try value(2, "rev"),
            contentHash: try value(3, "content_hash"), deleted: try value(4, "deleted"),
            mode: try mode.map { try IndexValue.mode($0, table: table, path: path) })
    }
}
