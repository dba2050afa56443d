/// The directories a burst of download echoes is looked at through. Each echo is checked
/// against what is at its path (`DownloadEchoes.consume`); a walk from the root for each
/// one (open the root, check its pin, open the directory, close both) was two thirds of
/// the receiving syncd's `openat` calls for 10,000 small files.
///
/// The handles are let go at every event about a directory (made, removed, moved: a held
/// handle would go on naming the old one) and after a second. Between those, a look
/// answers what a fresh walk answered when the handle was opened; an answer that is off
/// only turns an echo into an event journaled for nothing (a look again), or drops an
/// echo whose file moved away with its directory, which that directory's own event
/// handles. Nothing is read or written through them: only `lstat`.
struct EchoDirectories {
    private var open = OpenDirectories()
    private var since: ContinuousClock.Instant?
    static let lifetime = Duration.seconds(1)
    /// At most this many held (then all let go): a burst over many directories must not
    /// hold the process's file descriptors.
    static let limit = 128

    /// What is at `path` now (see `FolderRoot.lookup`).
    mutating func lstat(_ path: String, in folder: FolderRoot) -> FileStat.Lookup {
        let now = ContinuousClock.now
        if let since, now - since > Self.lifetime || open.count >= Self.limit { forget() }
        if since == nil { since = now }
        return open.lookup(path, in: folder).stat
    }

    mutating func forget() {
        open = OpenDirectories()
        since = nil
    }
}
