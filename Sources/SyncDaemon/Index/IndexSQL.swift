import GRDB

/// SQL pieces the index's stores share.
enum IndexSQL {
    /// A folder's `path` and everything below it ('0' is the character after '/'). Written as
    /// one range of the (folder_id, path) key, [path, path + "0"), filtered down to the path
    /// and what is below `path/`: SQLite does not use the key for the plain
    /// `path = ? OR (path >= ? AND path < ?)`, and scanned the folder's every row for each
    /// subtree statement (a move or a removal of one file, 2,000 renames: most of the mover's CPU).
    static let subtree = "folder_id = ? AND path >= ? AND path < ? AND (path = ? OR path >= ?)"

    static func subtree(folder: String, _ path: String) -> StatementArguments {
        [folder, path, path + "0", path, path + "/"]
    }

    /// `items` in slices small enough for one `IN (…)` each.
    static func slices<Item>(_ items: [Item], of size: Int = 500) -> [ArraySlice<Item>] {
        stride(from: 0, to: items.count, by: size).map { items[$0..<min($0 + size, items.count)] }
    }

    /// A statement over `count` paths (`paths(_:in:)`): kept prepared for the one path a
    /// single entry's reads name (planned one by one: a delete, a move, an entry applied alone),
    /// whose preparing took about a fifth of a receiving device's CPU in a run of deletes
    /// (GRDB's authorizer and region tracking run at each prepare); made anew for the many of
    /// a batch (one statement per count would be kept otherwise, up to 500 per table).
    static func statement(_ db: Database, sql: String, count: Int) throws -> Statement {
        count == 1 ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
    }

    /// `?, ?, …` for an `IN (…)` of `count` values.
    static func marks(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }

    /// `folder_id = ? AND path IN (?, …)` for the folder's `paths` (one of `slices`), with its
    /// arguments.
    static func paths(_ paths: ArraySlice<String>, in folder: String) -> (sql: String, arguments: StatementArguments) {
        ("folder_id = ? AND path IN (\(marks(paths.count)))", StatementArguments([folder] + Array(paths)))
    }

    /// A committed move in a table keyed by (folder_id, path): the rows at `from` and
    /// below it take the new name; whatever was at `to` and below it goes.
    static func renameSubtree(table: String, folder: String, from: String, to: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM \(table) WHERE \(subtree)", arguments: subtree(folder: folder, to))
        // substr/length count characters in both: the prefix is cut exactly.
        try db.execute(
            sql: "UPDATE \(table) SET path = ? || substr(path, length(?) + 1) WHERE \(subtree)",
            arguments: [to, from] + subtree(folder: folder, from))
    }
}
