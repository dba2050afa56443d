import GRDB

extension RecordStore {
    /// At start: downloads a kill -9 interrupted between recording and renaming. Where
    /// the staged file is not at its path, the path's records are put back as they were
    /// (the feed, whose cursor did not move past the entry, brings it again); where it
    /// is, the download landed. Returns the paths put back.
    func recoverInterruptedDownloads(folder: String, inodeAt: (String) -> UInt64?) throws -> [String] {
        var restored: [String] = []
        for (path, stagedInode) in try intents.staged(folder: folder) {
            guard inodeAt(path) != stagedInode else {
                try pool.write { db in try intents.drop(folder: folder, paths: [path], in: db) }
                continue
            }
            guard let intent = try intents.intent(folder: folder, path: path) else { continue }
            // Drops the intent too.
            try restore(folder: folder, path: path, local: intent.previousLocal, base: intent.previousBase)
            restored.append(path)
        }
        return restored
    }

    /// At start: remote deletes a kill -9 (or a power cut) interrupted between recording and
    /// the durable move to the trash. Where the file they were removing is still at its path
    /// (the same inode), the path's records are put back as they were, so the scan does not
    /// take it for a new file and push it back up (the feed, whose cursor did not move past
    /// the delete, brings it again); where it is not, the delete happened. Returns the paths
    /// put back.
    func recoverInterruptedDeletes(folder: String, inodeAt: (String) -> UInt64?) throws -> [String] {
        var restored: [String] = []
        var done: [String] = []
        for intent in try deleteIntents.all(folder: folder) {
            guard inodeAt(intent.path) == intent.inode else {
                done.append(intent.path)
                continue
            }
            // Drops the intent too.
            try restore(folder: folder, path: intent.path, local: intent.previousLocal, base: intent.previousBase)
            restored.append(intent.path)
        }
        if !done.isEmpty { try pool.write { db in try deleteIntents.drop(folder: folder, paths: done, in: db) } }
        return restored
    }
}
