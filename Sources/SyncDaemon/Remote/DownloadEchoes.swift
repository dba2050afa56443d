import Foundation
import Synchronization

/// Files a batch download is renaming into place, whose own inotify events are still to
/// come. The engine drops such an event instead of journaling it (a journal write and a
/// push round each, for nothing), and, more to the point, instead of handling it late: a
/// burst of hundreds of echoes still queued when the user renames their directory would
/// be read as those files gone, and the rename pushed as deletes and new files.
///
/// An echo matches only while the file at the path is the one placed: same inode, size
/// and mtime (its ctime changes with the rename itself). A write by the user in between
/// changes one of them, and its event is journaled as usual.
final class DownloadEchoes: Sendable {
    private struct Echo {
        var inode: UInt64
        var size: Int64
        var mtimeNs: Int64
        var expires: ContinuousClock.Instant
    }

    private let expected = Mutex<[String: Echo]>([:])
    /// An echo not seen by then is forgotten (its event was lost or merged).
    static let lifetime = Duration.seconds(30)

    /// Called right before the staged file `stat` is renamed to `path`.
    func expect(_ path: String, stat: FileStat) {
        let echo = Echo(inode: stat.inode, size: stat.size, mtimeNs: stat.mtimeNs, expires: .now + Self.lifetime)
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

    /// The rename did not happen.
    func forget(_ path: String) {
        _ = expected.withLock { $0.removeValue(forKey: path) }
    }

    /// Whether an event at `path` is the echo of a placed download (consumed: a second
    /// event there is the user's). `current` looks at what is at the path now; it is called
    /// only when an echo is expected there.
    func consume(_ path: String, current: () -> FileStat?) -> Bool {
        let echo = expected.withLock { $0.removeValue(forKey: path) }
        guard let echo, echo.expires > .now, let stat = current() else { return false }
        return stat.kind == .file && stat.inode == echo.inode && stat.size == echo.size && stat.mtimeNs == echo.mtimeNs
    }
}
