import SyncControl

/// What `syncctl` asks of a folder besides its status.
extension FolderEngine {
    /// Pausing takes effect before it returns: a remote change being applied finishes,
    /// nothing new is applied (a page a long-poll brings later stays unapplied, its cursor
    /// unmoved), and no new push starts.
    public func setPaused(_ paused: Bool) async throws {
        try index.folders.setPaused(folder: id, paused)
        await queue.setPaused(paused)
        if paused { await feed.quiesce() }
    }

    /// `syncctl rescan`: a full scan now.
    public func rescanNow() async {
        logger.info("rescan asked for", metadata: ["folder": "\(id)"])
        await scanner.fullScan()
    }

    /// `syncctl retry`: what waits out a backoff is tried now, and paths whose push failed
    /// for good are pushed once more (see `JournalStore.retryNow`); returns how many paths.
    /// Remote changes the device refused (a name it cannot take) are not: the server's feed
    /// has moved past them; a new revision of the path brings them again. `under`: only that
    /// path and what is below it (`syncctl retry --path`); the change feed's backoff is then
    /// left as it is.
    public func retryNow(under: String? = nil) async throws -> Int {
        let root = FolderRoot(self.root), ignore = self.ignore
        let pushes = try index.journal.retryNow(folder: id, under: under) { path, wasDirectory in
            // A directory's rules (`build/`) skip it only as a directory: its kind on disk, or
            // as last synced when it is gone.
            var isDirectory = wasDirectory
            if case .found(let stat) = root.lstat(path) { isDirectory = stat.kind == .directory }
            return ignore.skips(path, isDirectory: isDirectory)
        }
        let remote = try index.retries.retryNow(folder: id, under: under)
        logger.info(
            "retry asked for", metadata: ["folder": "\(id)", "path": "\(under ?? "")", "pushes": "\(pushes)", "remote": "\(remote)"])
        if under == nil { await feed.retryNow() }
        await queue.retryNow(under: under)
        return pushes + remote
    }

    /// `syncctl approve-deletes`: the held delete wave goes ahead (other devices then apply
    /// it without asking, into their trash).
    public func approveDeletes() async throws -> Int {
        try await queue.approveDeletes()
    }

    /// `syncctl restore` (see `RemoteRestore`).
    public func restore(path: String, rev: Int64?) async throws(RestoreChoice.Refusal) -> RestoreReply {
        try await restorer.restore(path: path, rev: rev)
    }
}

extension FolderEngine {
    /// A reload changed the folder's ignore patterns: rules rebuilt, watches and index
    /// brought in line by a full scan (as when `.syncignore` changes). Transfers go on.
    func updateIgnore(_ patterns: [String]) async {
        ignore.setConfigured(patterns)
        guard ignore.reload() else { return }
        logger.info("ignore rules changed by a reload; rescanning", metadata: ["folder": "\(id)"])
        await watch.rewatch()
        await scanner.fullScan()
    }
}
