import Foundation
import Synchronization
import SyncCore

/// Files a batch download is renaming into place, whose own inotify events are still to
/// come. The engine drops such an event instead of journaling it (a journal write and a
/// push round each, for nothing), and, more to the point, instead of handling it late: a
/// burst of hundreds of echoes still queued when the user renames their directory would
/// be read as those files gone, and the rename pushed as deletes and new files.
///
/// An echo matches only while the file at the path is the one placed: same inode, size
/// and mtime (its ctime changes with the rename itself). A write by the user in between
/// changes one of them, and its event is journaled as usual.
///
/// A directory a download makes is expected too, before it is made (its event may be read
/// before `mkdir` returns): its creation event then needs no journaling of the directory
/// itself, whose rows the download writes. It matches a directory at the path with the
/// inode made, or any directory while the `mkdir` is under way. An event that the path
/// went away drops what was expected there.
final class DownloadEchoes: Sendable {
    private struct Echo {
        var kind: EntryKind
        /// nil: a directory being made.
        var inode: UInt64?
        var size: Int64
        var mtimeNs: Int64
        var expires: ContinuousClock.Instant
    }

    private let expected = Mutex<[String: Echo]>([:])
    /// An echo not seen by then is forgotten (its event was lost or merged).
    static let lifetime = Duration.seconds(30)

    /// Called right before the staged file `stat` is renamed to `path`.
    func expect(_ path: String, stat: FileStat) {
        insert(path, Echo(kind: .file, inode: stat.inode, size: stat.size, mtimeNs: stat.mtimeNs, expires: .now + Self.lifetime))
    }

    /// Called right before a download makes the directory `path`; `made` once it did.
    func expectDirectory(_ path: String) {
        insert(path, Echo(kind: .directory, inode: nil, size: 0, mtimeNs: 0, expires: .now + Self.lifetime))
    }

    /// The directory expected at `path` was made (or found there) with `inode`.
    func made(_ path: String, inode: UInt64) {
        expected.withLock { table in
            guard table[path]?.kind == .directory else { return }
            table[path]?.inode = inode
        }
    }

    private func insert(_ path: String, _ echo: Echo) {
        expected.withLock { table in
            if table.count > 10_000 {
                let now = ContinuousClock.now
                table = table.filter { $0.value.expires > now }
            }
            table[path] = echo
        }
    }

    /// No echo is expected (the engine then lets go of the directories it looked through).
    var isEmpty: Bool { expected.withLock { $0.isEmpty } }

    /// The rename (or `mkdir`) did not happen, or the path went away since.
    func forget(_ path: String) {
        _ = expected.withLock { $0.removeValue(forKey: path) }
    }

    /// Whether an event at `path` is the echo of a placed download (consumed: a second
    /// event there is the user's). `current` looks at what is at the path now; it is called
    /// only when an echo is expected there.
    func consume(_ path: String, current: () -> FileStat?) -> Bool {
        let echo = expected.withLock { $0.removeValue(forKey: path) }
        guard let echo, echo.expires > .now, let stat = current(), stat.kind == echo.kind else { return false }
        // A directory's mtime and size change as the download fills it.
        if echo.kind == .directory { return echo.inode == nil || echo.inode == stat.inode }
        return stat.inode == echo.inode && stat.size == echo.size && stat.mtimeNs == echo.mtimeNs
    }
}
