import SyncCore

extension RemoteFeed {
    /// The folder's latest revision on the server now (what `syncctl wait` waits for); nil
    /// when the server cannot be asked (the wait then goes by what the feed already knows).
    func serverHead() async -> Int64? {
        do {
            let cursor = try index.folders.state(folder: folder).remoteCursor
            let page = try await remote.changes(folder: folder, since: cursor, waitSeconds: 0, limit: 1)
            // An older server has no `head`: a page with entries says at least its cursor.
            return page.head ?? (page.entries.isEmpty ? cursor : page.cursor)
        } catch {
            logger.info("cannot ask the server for the folder's revision", metadata: ["folder": "\(folder)", "error": "\(error)"])
            return nil
        }
    }
}
