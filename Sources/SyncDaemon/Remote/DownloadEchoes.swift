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
/// inode made, or any directory while the `mkdir` is under way; an event taken as the echo
/// of a directory whose making or recording then fails is handed back (`takeUnrecorded`)
/// to be journaled after all. An event that a path went away drops what was expected
/// there (and below, for a directory); lost events drop everything.
final class DownloadEchoes: Sendable {
    private struct Echo {
        var kind: EntryKind
        /// nil: a directory being made.
        var inode: UInt64?
        var size: Int64
        var mtimeNs: Int64
        var expires: ContinuousClock.Instant
        /// A directory's creation event was taken as this echo before its rows were written.
        var seen = false
        /// A directory a remote move renames whole (its rename's event is the echo, not a
        /// creation's): matched by the inode it had at its old path.
        var moved = false

        /// A directory whose download has not said yet how it ended (`recorded` drops a
        /// seen one, so a seen echo is always one of these).
        var isBeingMade: Bool { kind == .directory && inode == nil }
    }

    private struct Table {
        var echoes: [String: Echo] = [:]
        /// Directories whose creation event was taken as an echo, and which were then not
        /// made or not recorded.
        var unrecorded: [String] = []
    }

    private let expected = Mutex(Table())
    /// An echo not seen by then is forgotten (its event was lost or merged).
    static let lifetime = Duration.seconds(30)

    /// Called right before the staged file `stat` is renamed to `path`.
    func expect(_ path: String, stat: FileStat) {
        insert(path, Echo(kind: .file, inode: stat.inode, size: stat.size, mtimeNs: stat.mtimeNs, expires: .now + Self.lifetime))
    }

    /// Called right before a download makes the directory `path`; `recorded` once its rows
    /// are written, `failed` if it was not made or not recorded.
    func expectDirectory(_ path: String) {
        insert(path, Echo(kind: .directory, inode: nil, size: 0, mtimeNs: 0, expires: .now + Self.lifetime))
    }

    /// Called right before a remote directory move renames the directory with `inode` to
    /// `path` (`RemoteApplier.moveDirectoryWhole`).
    func expectMove(_ path: String, inode: UInt64) {
        insert(path, Echo(kind: .directory, inode: inode, size: 0, mtimeNs: 0, expires: .now + Self.lifetime, moved: true))
    }

    /// The move expected at `path` did not happen (or was undone).
    func forgetMove(_ path: String) {
        expected.withLock { table in
            if table.echoes[path]?.moved == true { table.echoes[path] = nil }
        }
    }

    /// The directory expected at `path` was made with `inode` and recorded.
    func recorded(_ path: String, inode: UInt64) {
        expected.withLock { table in
            guard let echo = table.echoes[path], echo.kind == .directory else { return }
            if echo.seen {
                table.echoes[path] = nil
            } else {
                table.echoes[path]?.inode = inode
            }
        }
    }

    /// The directory expected at `path` was not made or not recorded.
    func failed(_ path: String) {
        expected.withLock { table in
            guard let echo = table.echoes.removeValue(forKey: path), echo.kind == .directory, echo.seen else { return }
            table.unrecorded.append(path)
        }
    }

    /// Directories whose creation event was taken as an echo but whose download failed:
    /// to be journaled.
    func takeUnrecorded() -> [String] {
        expected.withLock { table in
            defer { table.unrecorded = [] }
            return table.unrecorded
        }
    }

    private func insert(_ path: String, _ echo: Echo) {
        expected.withLock { table in
            if table.echoes.count > 10_000 {
                let now = ContinuousClock.now
                table.echoes = table.echoes.filter { $0.value.expires > now || $0.value.isBeingMade }
            }
            table.echoes[path] = echo
        }
    }

    /// No echo is expected (the engine then lets go of the directories it looked through).
    var isEmpty: Bool { expected.withLock { $0.echoes.isEmpty } }

    /// The rename did not happen, or a file went away from `path` since.
    func forget(_ path: String) {
        expected.withLock { table in
            // A directory expected there is not the file that went (a download making room for it).
            if let echo = table.echoes[path], echo.kind == .file { table.echoes[path] = nil }
        }
    }

    /// A directory went away from `path`: nothing at or below it is expected any more, but
    /// for a directory still being made (its download says how it ended).
    func forgetDirectory(_ path: String) {
        expected.withLock { table in
            guard !table.echoes.isEmpty else { return }
            let prefix = path + "/"
            for (key, echo) in table.echoes where (key == path || key.hasPrefix(prefix)) && !echo.isBeingMade {
                table.echoes[key] = nil
            }
        }
    }

    /// Events were lost: nothing more is expected (what is being made is kept, as above).
    func forgetAll() {
        expected.withLock { table in
            table.echoes = table.echoes.filter { $0.value.isBeingMade }
        }
    }

    /// Whether an event at `path` is the echo of a placed download (consumed: a second
    /// event there is the user's); with `moved`, of a directory a remote move renamed there
    /// (only a rename's event is asked about that, and only that about a rename's event).
    /// `current` looks at what is at the path now; it is called only when an echo is
    /// expected there.
    func consume(_ path: String, moved: Bool = false, current: () -> FileStat?) -> Bool {
        let echo = expected.withLock { table -> Echo? in
            guard let echo = table.echoes[path], echo.moved == moved else { return nil }
            // A directory not recorded yet stays, marked, until its download says how it ended.
            if echo.isBeingMade {
                table.echoes[path]?.seen = true
            } else {
                table.echoes[path] = nil
            }
            return echo
        }
        guard let echo, echo.expires > .now, !echo.seen, let stat = current(), stat.kind == echo.kind else { return false }
        // A directory's mtime and size change as the download fills it.
        if echo.kind == .directory { return echo.inode == nil || echo.inode == stat.inode }
        return stat.inode == echo.inode && stat.size == echo.size && stat.mtimeNs == echo.mtimeNs
    }
}
