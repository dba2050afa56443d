import CInotify
import Glibc

/// The watch table: which directory each watch descriptor stands for.
/// libinotifytools' own table cannot be trusted after the kernel drops a
/// watch (IN_IGNORED): its removal calls `inotify_rm_watch` on the dead
/// descriptor, fails, prints to stderr and keeps the entry, so a later
/// directory of the same name collides with it (decision 0005). This table
/// adds and removes watches on libinotifytools' descriptor directly and can
/// drop a whole subtree: a tree that leaves the folder stops reporting.
/// Touched on the watcher thread only.
struct WatchedDirectories {
    var fd: Int32 = -1
    private var byWD: [Int32: String] = [:]
    private var byPath: [String: Int32] = [:]

    var count: Int { byPath.count }

    func path(of wd: Int32) -> String? { byWD[wd] }

    func contains(_ path: String) -> Bool { byPath[path] != nil }

    /// Watches one directory; on failure returns the `errno`.
    mutating func add(_ path: String, mask: UInt32) -> Int32? {
        let wd = inotify_add_watch(fd, path, mask | UInt32(IN_ONLYDIR | IN_DONT_FOLLOW))
        guard wd >= 0 else { return errno }
        if let old = byPath[path], old != wd { byWD[old] = nil }
        if let oldPath = byWD[wd], oldPath != path { byPath[oldPath] = nil }
        byWD[wd] = path
        byPath[path] = wd
        return nil
    }

    /// The kernel dropped this watch (IN_IGNORED): its directory is gone.
    mutating func forget(wd: Int32) {
        guard let path = byWD.removeValue(forKey: wd) else { return }
        if byPath[path] == wd { byPath[path] = nil }
    }

    /// `path` and every watched directory below it.
    func subtree(_ path: String) -> [String] {
        let prefix = path + "/"
        return byPath.keys.filter { $0 == path || $0.hasPrefix(prefix) }
    }

    /// A paired directory move: the kernel's watches follow the inodes, the names follow here.
    mutating func rename(_ from: String, to: String) {
        let moved = subtree(from).compactMap { old in byPath.removeValue(forKey: old).map { (old, $0) } }
        for (old, wd) in moved {
            let new = to + old.dropFirst(from.count)
            if let displaced = byPath[new] { byWD[displaced] = nil }
            byPath[new] = wd
            byWD[wd] = new
        }
    }

    /// Stops watching `path` and everything below it. Events still queued for
    /// those watches find no path and are dropped.
    mutating func remove(subtree path: String) {
        for dir in subtree(path) {
            guard let wd = byPath.removeValue(forKey: dir) else { continue }
            byWD[wd] = nil
            _ = inotify_rm_watch(fd, wd)  // EINVAL if the kernel already dropped it: nothing left to do
        }
    }
}
