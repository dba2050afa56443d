import GRDB

/// A held delete wave (journal rows in state `held`) listed, or rejected.
extension IndexStore {
    /// The paths of the folder's held deletes, sorted.
    public func heldDeletes(folder: String) throws -> [String] {
        try pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT path FROM journal WHERE folder_id = ? AND state = 'held' ORDER BY path", arguments: [folder])
        }
    }

    /// `syncctl reject-deletes`, in one transaction: the held deletes among `paths` leave
    /// the journal (they will never be pushed), and the base records of `restoring` go, so
    /// that the server's current entry for each is planned as a download (nothing here,
    /// nothing agreed: the remote version comes back). Returns how many held rows went.
    func rejectHeldDeletes(folder: String, paths: [String], restoring: [String]) throws -> Int {
        try pool.write { db in
            let drop = try db.cachedStatement(sql: "DELETE FROM journal WHERE folder_id = ? AND path = ? AND state = 'held'")
            var dropped = 0
            for path in paths {
                try drop.execute(arguments: [folder, path])
                dropped += db.changesCount
            }
            for path in restoring { try base.remove(folder: folder, path: path, in: db) }
            return dropped
        }
    }
}
