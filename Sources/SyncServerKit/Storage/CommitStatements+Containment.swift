import GRDB
import SyncCore

/// No live entry may lie below a live symlink: a device that received both
/// would be asked to write through the link (docs/security.md). Checked on
/// the state a commit leaves behind, inside its transaction, so the order of
/// its changes does not matter; a violation rejects the whole commit.
extension CommitStatements {
    /// `touched`: the live paths this commit wrote (changes and move targets).
    func checkNothingBelowSymlinks(touched: [(path: String, kind: EntryKind)], folder: String) throws {
        guard !touched.isEmpty else { return }
        let kindAt = try db.cachedStatement(
            sql: "SELECT kind FROM entries WHERE folder_id = ? AND path = ? AND deleted = 0")
        let liveBelow = try db.cachedStatement(sql: """
            SELECT path FROM entries WHERE folder_id = ? AND deleted = 0 AND path >= ? AND path < ? LIMIT 1
            """)
        var symlinkAt: [String: Bool] = [:]
        for (path, kind) in touched {
            var end = path.startIndex
            while let slash = path[end...].firstIndex(of: "/") {
                let ancestor = String(path[..<slash])
                end = path.index(after: slash)
                let isLink: Bool
                if let known = symlinkAt[ancestor] {
                    isLink = known
                } else {
                    isLink = try String.fetchOne(kindAt, arguments: [folder, ancestor]) == EntryKind.symlink.rawValue
                    symlinkAt[ancestor] = isLink
                }
                if isLink {
                    throw APIError.badRequest("\(path): its parent \(ancestor) is a symlink; nothing may be stored below a symlink")
                }
            }
            if kind == .symlink, let child = try String.fetchOne(liveBelow, arguments: [folder, path + "/", path + "0"]) {
                throw APIError.badRequest(
                    "\(path): cannot be a symlink while \(child) lies below it; delete what is below it in the same commit")
            }
        }
    }
}
