import GRDB

extension RecordStore {
    /// Paths at or below `directory` whose remote delete is not done yet: kept for a retry
    /// (`remote_retry`), or with an intent left (`delete_intents`: a run under way, or one a
    /// kill or a failure left). (The caller leaves out its own run's paths, the directory's
    /// among them.) A directory that is not empty because of one of these is kept
    /// with it (`RemoteApplier.removeRecorded`), not pushed back as the user's.
    func deletesPending(folder: String, below directory: String) throws -> Set<String> {
        try pool.read { db in
            var found = Set<String>()
            for table in [RemoteRetryStore.table, DeleteIntentStore.table] {
                let rows = try String.fetchAll(
                    db, sql: "SELECT path FROM \(table) WHERE \(IndexSQL.subtree)", arguments: IndexSQL.subtree(folder: folder, directory))
                found.formUnion(rows)
            }
            return found
        }
    }
}
