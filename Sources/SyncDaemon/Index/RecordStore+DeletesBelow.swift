import GRDB

extension RecordStore {
    /// Paths strictly below `directory` whose remote delete is not done yet: kept for a retry
    /// (`remote_retry`), or with an intent left (`delete_intents`: a run under way, or one a
    /// kill or a failure left). A directory that is not empty because of one of these is kept
    /// with it (`RemoteApplier.removeRecorded`), not pushed back as the user's.
    func deletesPending(folder: String, below directory: String) throws -> Set<String> {
        try pool.read { db in
            var found = Set<String>()
            let below: StatementArguments = [folder, directory + "/", directory + "0"]
            for table in [RemoteRetryStore.table, DeleteIntentStore.table] {
                let rows = try String.fetchAll(
                    db, sql: "SELECT path FROM \(table) WHERE folder_id = ? AND path >= ? AND path < ?", arguments: below)
                found.formUnion(rows)
            }
            return found
        }
    }
}
