import Foundation
import SyncClient
import SyncControl
import SyncCore

/// A delete wave held here (more than `max_delete_fraction` of the folder deleted at once):
/// listed by `syncctl deletes`, let through by `approve-deletes` (see `FolderEngine+Control`),
/// or undone by `reject-deletes`, which brings the files back from the server.
extension FolderEngine {
    public func heldDeletes() throws -> [String] {
        try index.heldDeletes(folder: id)
    }

    /// Drops the held deletes and downloads the server's current version of each path
    /// again (a path deleted on the server meanwhile stays deleted). The server is asked
    /// first: if it cannot be reached, nothing changes. Returns (rejected, restored).
    /// A held path that is on disk again (re-created, or a file moved onto it, since it was
    /// deleted) is no delete any more: it goes up as what it holds, and the server's version
    /// is not brought back over it (that made the user's new file a conflict copy). It is let
    /// go only once the others are back: a directory made again goes up as a new directory,
    /// whose push looks again at what the old one held and is not on disk. Let go first, it
    /// journaled the paths being brought back as this device's pushes, and their download was
    /// then taken for this device's own echo and skipped: they stayed missing here for good
    /// (a CI run).
    public func rejectDeletes() async throws -> (rejected: Int, restored: Int) {
        var held: [String] = [], back: [String] = []
        for path in try index.heldDeletes(folder: id) {
            if case .missing = folder.lstat(path) { held.append(path) } else { back.append(path) }
        }
        var outcome = (rejected: 0, restored: 0)
        // (Below a directory made again, too: moved out of the folder, only its own op was held.)
        let gone = try goneBelow(held, remade: back)
        try refuseIntoNonDirectories(restoring: held + gone, back: back)
        if !held.isEmpty || !gone.isEmpty {
            let current = try await currentEntries(held + gone)
            // Parents before what is in them.
            let restoring = current.sorted {
                ($0.path.split(separator: "/").count, $0.path) < ($1.path.split(separator: "/").count, $1.path)
            }
            outcome.rejected = try index.rejectHeldDeletes(folder: id, paths: held, restoring: restoring.map(\.path))
            outcome.restored = restoring.count
            logger.notice(
                "held delete wave rejected: bringing the files back from the server",
                metadata: ["folder": "\(id)", "rejected": "\(outcome.rejected)", "restoring": "\(restoring.count)"])
            // What cannot be fetched now is kept and retried like any remote change.
            await feed.apply(restoring)
        }
        if !back.isEmpty {
            try index.journal.releaseHeld(folder: id, paths: back)
            logger.notice(
                "held deletes of paths that are there again go up as what they hold",
                metadata: ["folder": "\(id)", "count": "\(back.count)"])
            await queue.retryNow()
        }
        return outcome
    }

    /// A directory that is something else now (a file or a symlink made at its path, or at a
    /// directory above it): what it held cannot come back into it, and its new content cannot
    /// go up over the server's directory while that holds the paths the reject keeps. The
    /// reject is refused, nothing changed, and the user chooses: move the new file away and
    /// reject again, or approve the deletes. (Before, the paths below it were brought back into
    /// a file, failed and were retried for good, and the file went up over the directory.)
    private func refuseIntoNonDirectories(restoring: [String], back: [String]) throws {
        // (Each directory above the paths looked at once: a wave holds thousands below a few.)
        var looked: [String: EntryKind?] = [:]
        func nonDirectory(_ path: String) -> EntryKind? {
            if let known = looked[path] { return known }
            var kind: EntryKind?
            if case .found(let stat) = folder.lstat(path), stat.kind != .directory { kind = stat.kind }
            looked[path] = kind
            return kind
        }
        var blocked: [String: (kind: EntryKind, below: Int)] = [:]
        for path in restoring {
            for ancestor in RelativePath.ancestors(of: path) {
                guard let kind = nonDirectory(ancestor) else { continue }
                blocked[ancestor, default: (kind, 0)].below += 1
                break
            }
        }
        // A held directory on disk again as a file: what the server holds below it stays there.
        for path in back where blocked[path] == nil {
            guard let kind = nonDirectory(path) else { continue }
            let below = try index.base.live(folder: id, under: path).count { $0.path != path }
            if below > 0 { blocked[path] = (kind, below) }
        }
        guard let (path, what) = blocked.min(by: { $0.key < $1.key }) else { return }
        throw DaemonError(
            .notADirectory,
            "\(path) was a directory when the deletes were held, and is \(what.kind == .symlink ? "a symlink" : "a file") now: "
                + "what it held (\(what.below) paths) cannot be brought back into it. Nothing was changed in this folder; move "
                + "\(path) away and run `syncctl reject-deletes` again, or let the deletes go with `syncctl approve-deletes`",
            path: path)
    }

    /// The synced entries below the held paths (those missing, `held`, and those on disk
    /// again, `remade`) that are not held themselves and are not on disk: a directory moved
    /// out of the folder holds only its own op (no event names what was in it), and what was
    /// in it comes back with it, also into a directory made again at its path. (Deleted one
    /// by one, each has a held op of its own.) Left out: a path with a change of this device
    /// on its way (an op of its own, or a move from it) or a download landing there: those
    /// decide it; and what was below a path made again as something else than a directory
    /// (that goes up as what it is now).
    private func goneBelow(_ held: [String], remade: [String]) throws -> [String] {
        let heldPaths = Set(held)
        let directories = remade.filter { path in
            guard case .found(let stat) = folder.lstat(path) else { return false }
            return stat.kind == .directory
        }
        // Below the topmost held paths only (in an `rm -r` wave, everything below is held too).
        let all = Set(held + directories)
        let topmost = all.filter { !RelativePath.ancestors(of: $0).contains(where: all.contains) }.sorted()
        var gone = Set<String>()
        for (path, live) in try index.base.live(folder: id, under: topmost) {
            for entry in live where entry.path != path && !heldPaths.contains(entry.path) {
                guard case .missing = folder.lstat(entry.path) else { continue }
                if try index.journal.hasPendingPush(folder: id, path: entry.path)
                    || index.journal.isPendingMoveSource(folder: id, path: entry.path)
                    || index.intents.intent(folder: id, path: entry.path) != nil
                {
                    continue
                }
                gone.insert(entry.path)
            }
        }
        return gone.sorted()
    }

    /// The server's newest version of each path that is live there, 8 asked at a time.
    private func currentEntries(_ paths: [String]) async throws -> [WireEntry] {
        let remote = restorer.remote
        let folder = id
        return try await withThrowingTaskGroup(of: WireEntry?.self) { group in
            var next = 0
            var found: [WireEntry] = []
            func ask() {
                guard next < paths.count else { return }
                let path = paths[next]
                next += 1
                group.addTask {
                    do {
                        guard let newest = try await remote.history(folder: folder, path: path).first, !newest.deleted else { return nil }
                        return newest
                    } catch {
                        throw DaemonError(
                            .serverUnreachable, "cannot ask the server for \(path) to bring it back: \(error); nothing was changed",
                            path: path, underlying: error)
                    }
                }
            }
            for _ in 0..<min(8, paths.count) { ask() }
            while let entry = try await group.next() {
                if let entry { found.append(entry) }
                ask()
            }
            return found
        }
    }
}
