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

    /// How many of these file tombstones remove content that no other live path holds.
    /// One pass over the folder's live records: `base` has no index by content, and a look
    /// per tombstone read them all each time (a batch of 2,000 deletes in a folder of
    /// 100,000 entries: 200 million rows).
    func countLost(folder: String, _ tombstones: [CommitChange]) throws -> Int {
        guard !tombstones.isEmpty else { return 0 }
        let wanted = Set(tombstones.map(\.contentHash))
        // Per content asked about: how many live paths hold it, and one of them.
        var holders: [String: (count: Int, path: String)] = [:]
        try pool.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT path, content_hash FROM base WHERE folder_id = ? AND deleted = 0", arguments: [folder])
            while let row = try rows.next() {
                let hash: String = try row.indexValue("content_hash", table: Self.table)
                guard wanted.contains(hash) else { continue }
                if let known = holders[hash] {
                    holders[hash] = (known.count + 1, known.path)
                } else {
                    holders[hash] = (1, try row.indexValue("path", table: Self.table))
                }
            }
        }
        return tombstones.filter { t in
            guard let held = holders[t.contentHash] else { return true }
            return held.count == 1 && held.path == t.path
        }.count
    }
}
