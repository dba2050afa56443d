import CInotify

/// Our own list of the directories being watched, by path, kept beside
/// libinotifytools' table because that table cannot be walked by prefix.
/// With it a subtree that leaves the folder (or an unsubscribed root) drops
/// every watch below it, not just the top one: a stale watch would keep
/// reporting events under a path that now belongs to something else.
/// Touched on the watcher thread only.
struct WatchedDirectories {
    private var paths: Set<String> = []

    var count: Int { paths.count }

    mutating func insert(_ path: String) { paths.insert(path) }

    mutating func forget(_ path: String) { paths.remove(path) }

    func contains(_ path: String) -> Bool { paths.contains(path) }

    /// `path` and every watched directory below it.
    func subtree(_ path: String) -> [String] {
        let prefix = path + "/"
        return paths.filter { $0 == path || $0.hasPrefix(prefix) }
    }

    /// A paired directory move: the kernel's watches follow the inodes; the names follow here
    /// and in libinotifytools.
    mutating func rename(_ from: String, to: String) {
        for old in subtree(from) {
            paths.remove(old)
            paths.insert(to + old.dropFirst(from.count))
        }
        inotifytools_replace_filename(from + "/", to + "/")
    }

    /// Stops watching `path` and everything below it.
    mutating func remove(subtree path: String) {
        for dir in subtree(path) {
            _ = inotifytools_remove_watch_by_filename(dir + "/")
            paths.remove(dir)
        }
    }
}
