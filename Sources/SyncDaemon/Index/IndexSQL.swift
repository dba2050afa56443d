import GRDB

/// SQL pieces the index's stores share.
enum IndexSQL {
    /// A folder's `path` and everything below it ('0' is the character after '/').
    static let subtree = "folder_id = ? AND (path = ? OR (path >= ? AND path < ?))"

    static func subtree(folder: String, _ path: String) -> StatementArguments {
        [folder, path, path + "/", path + "0"]
    }

    /// `items` in slices small enough for one `IN (…)` each.
    static func slices<Item>(_ items: [Item], of size: Int = 500) -> [ArraySlice<Item>] {
        stride(from: 0, to: items.count, by: size).map { items[$0..<min($0 + size, items.count)] }
    }

    /// `?, ?, …` for an `IN (…)` of `count` values.
    static func marks(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }
}
