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
    func countLost(folder: String, _ tombstones: [CommitChange]) throws -> Int {
        guard !tombstones.isEmpty else { return 0 }
        return try pool.read { db in
            let copy = try db.cachedStatement(sql: """
                SELECT EXISTS (SELECT 1 FROM base WHERE folder_id = ? AND content_hash = ? AND deleted = 0 AND path != ?)
                """)
            var lost = 0
            for t in tombstones where try Bool.fetchOne(copy, arguments: [folder, t.contentHash, t.path]) != true {
                lost += 1
            }
            return lost
        }
    }
}
