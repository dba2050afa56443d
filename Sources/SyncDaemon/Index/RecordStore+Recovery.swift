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

    /// What is at a delete intent's path now (`recoverInterruptedDeletes`).
    enum FoundAtPath {
        case nothing
        case file(FileStat)
        /// It could not be looked at (a directory that cannot be read, an I/O error): the
        /// intent stays for a later start.
        case unknown
    }

    /// Once per process, after the first scan has found the root as synced (not missing,
    /// not empty): `intents`, the remote deletes earlier processes (`DeleteIntentStore.left`)
    /// recorded and did not see through (a kill -9, a power cut that lost the move to the
    /// trash, a failed barrier). Where the very file the delete was removing is still at its
    /// path, untouched (`RemovedFile.isStill`), its records are put back and the delete is
    /// kept for a retry, due now, in the same transaction: applied again whether or not the
    /// feed brings it again. Anything else there is the user's (a new file, an edit, the file
    /// moved back from the trash), and the delete counts as done. Only over the tombstone
    /// the delete recorded: a newer revision recorded since stays. Returns the paths put back.
    func recoverInterruptedDeletes(folder: String, _ intents: [DeleteIntent], at look: (String) -> FoundAtPath) throws -> [String] {
        let retries = RemoteRetryStore(pool: pool)
        let errors = PathErrorStore(pool: pool)
        var restored: [String] = []
        var done: [String] = []
        for intent in intents {
            switch look(intent.path) {
            case .unknown: continue
            case .nothing: done.append(intent.path)
            case .file(let stat):
                guard intent.file.isStill(stat) else {
                    done.append(intent.path)
                    continue
                }
                let put = try pool.write { db in
                    // A newer revision recorded since stays: the delete counts as done.
                    guard try base.record(folder: folder, path: intent.path, in: db) == intent.entry.baseRecord else { return false }
                    // Drops the intent too.
                    try putBack(folder: folder, path: intent.path, local: intent.previousLocal, base: intent.previousBase, in: db)
                    let cut = DaemonError(.interrupted, "a remote delete cut short by the last stop; applied again", path: intent.path)
                    try retries.hold(folder: folder, [(intent.entry, cut)], delay: { _ in 0 }, in: db)
                    return true
                }
                if put { restored.append(intent.path) } else { done.append(intent.path) }
            }
        }
        if !done.isEmpty {
            try pool.write { db in
                try deleteIntents.drop(folder: folder, paths: done, in: db)
                // (The error a failure that left the intent showed is settled too; others stay.)
                for path in done { try errors.clear(folder: folder, path: path, code: .interrupted, in: db) }
            }
        }
        return restored
    }
}
