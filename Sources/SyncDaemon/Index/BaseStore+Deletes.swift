import GRDB
import SyncCore

/// What the delete-wave guard weighs a wave against.
extension BaseStore {
    /// How many entries the folder has on the server (live base records).
    public func liveCount(folder: String) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM base WHERE folder_id = ? AND deleted = 0", arguments: [folder]) ?? 0
        }
    }

    /// How many of these file tombstones remove content that no live path outside them holds.
    /// One pass over the folder's live records: `base` has no index by content, and a look
    /// per tombstone read them all each time (a batch of 2,000 deletes in a folder of
    /// 100,000 entries: 200 million rows).
    func countLost(folder: String, _ tombstones: [CommitChange]) throws -> Int {
        guard !tombstones.isEmpty else { return 0 }
        let wanted = Set(tombstones.map(\.contentHash))
        // A path this batch deletes holds nothing after it: all copies of some content
        // deleted together (a folder and its backup) lose it.
        let deleting = Set(tombstones.map(\.path))
        // The contents asked about that a live path outside this batch holds.
        var held = Set<String>()
        try pool.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT path, content_hash FROM base WHERE folder_id = ? AND deleted = 0", arguments: [folder])
            while let row = try rows.next() {
                let hash: String = try row.indexValue("content_hash", table: Self.table)
                guard wanted.contains(hash) else { continue }
                let path: String = try row.indexValue("path", table: Self.table)
                guard !deleting.contains(path) else { continue }
                held.insert(hash)
            }
        }
        return tombstones.filter { !held.contains($0.contentHash) }.count
    }
}
