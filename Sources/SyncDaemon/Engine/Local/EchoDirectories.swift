/// The directories a burst of download echoes is looked at through. Each echo is checked
/// against what is at its path (`DownloadEchoes.consume`); a walk from the root for each
/// one (open the root, check its pin, open the directory, close both) was two thirds of
/// the receiving syncd's `openat` calls for 10,000 small files.
///
/// The handles are let go at every event about a directory (made, removed, moved: a held
/// handle would go on naming the old one), when events were lost, once no echo is left
/// to expect (an open directory keeps its file system from being unmounted), and after a
/// second (checked at each event: an echo whose event never comes keeps them until the
/// next event). Between those, a look answers what a fresh walk answered when the handle
/// was opened; an answer that is off only turns an echo into an event journaled for
/// nothing (a look again), or drops an echo whose file moved away with its directory,
/// which that directory's own event handles. Nothing is read or written through them:
/// only `lstat`, which, for a directory the user moved out of the folder meanwhile, looks
/// at a name in it until that directory's own event comes.
struct EchoDirectories {
    private var open = OpenDirectories()
    private var since: ContinuousClock.Instant?
    static let lifetime = Duration.seconds(1)
    /// At most this many held (then all let go): a burst over many directories must not
    /// hold the process's file descriptors.
    static let limit = 128

    /// What is at `path` now (see `FolderRoot.lookup`).
    mutating func lstat(_ path: String, in folder: FolderRoot) -> FileStat.Lookup {
        expire()
        if open.count >= Self.limit { forget() }
        if since == nil { since = .now }
        return open.lookup(path, in: folder).stat
    }

    /// Lets the handles go if they were first used more than `lifetime` ago.
    mutating func expire() {
        if let since, ContinuousClock.now - since > Self.lifetime { forget() }
    }

    mutating func forget() {
        open = OpenDirectories()
        since = nil
    }
}
