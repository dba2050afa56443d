import Glibc
import Logging

/// What is left over from earlier runs: old trash, downloads and deletes a kill cut short, staging files.
struct FolderHousekeeping: Sendable {
    let folder: String
    let root: FolderRoot
    let index: IndexStore
    /// Where remote deletes put local files, and for how long.
    let trash: Trash
    let trashRetention: Duration
    let logger: Logger
    /// Partial downloads kept over the last stop: their staging files stay (decision 0036).
    var partials: PartialDownloads? = nil

    /// Files that remote deletes moved to the trash go once the retention period is over.
    func expireTrash() {
        do {
            let removed = try trash.expire(retention: trashRetention)
            if removed > 0 { logger.info("emptied old trash", metadata: ["folder": "\(folder)", "batches": "\(removed)"]) }
        } catch {
            logger.error("cannot empty old trash", metadata: ["folder": "\(folder)", "error": "\(error)"])
        }
    }

    /// Downloads a kill -9 cut between recording and renaming: their records are put
    /// back, so the scan does not take the old file on disk for a local edit (which would
    /// push the previous version over the newer one, or make a conflict copy of it).
    func recoverInterruptedDownloads() {
        do {
            let restored = try index.records.recoverInterruptedDownloads(folder: folder) { path in
                guard case .found(let stat) = root.lstat(path) else { return nil }
                return stat.inode
            }
            if !restored.isEmpty {
                logger.info(
                    "downloads cut short by the last stop will be fetched again",
                    metadata: ["folder": "\(folder)", "paths": "\(restored.count)"])
            }
        } catch {
            logger.error("cannot recover interrupted downloads", metadata: ["folder": "\(folder)", "error": "\(error)"])
        }
    }

    /// What resolving the delete intents earlier processes left did.
    enum DeletesRecovery: Equatable {
        /// Resolved; true when records were put back (the scan's baseline is read again).
        case resolved(restoredAny: Bool)
        /// Not judged: the root looks empty while intents are left (an unmounted disk whose
        /// files a run had just made tombstones would read as "every delete happened").
        case deferred
    }

    /// Remote deletes an earlier process recorded and did not see through (a kill -9, a power
    /// cut that lost the move to the trash): where the file is still there untouched, its
    /// records are put back and the delete is applied again, so the scan does not push it back
    /// up as new (which would undo the delete on every device). Run once the first scan has
    /// checked the root: an unmounted disk must not read as "the delete happened".
    func recoverInterruptedDeletes(rootIsEmpty: Bool) throws -> DeletesRecovery {
        let left = try index.records.deleteIntents.left(folder: folder)
        for path in left.unreadable {
            logger.error("a remote delete's intent cannot be read; kept as it is", metadata: ["folder": "\(folder)", "path": "\(path)"])
        }
        guard !left.intents.isEmpty else { return .resolved(restoredAny: false) }
        guard !rootIsEmpty else {
            logger.warning(
                "the folder root is empty while remote deletes cut short by the last stop are left; judged at a later scan",
                metadata: ["folder": "\(folder)", "paths": "\(left.intents.count)"])
            return .deferred
        }
        let restored = try index.records.recoverInterruptedDeletes(folder: folder, left.intents) { path in
            switch root.lstat(path) {
            case .found(let stat): return .file(stat)
            case .missing, .unsupported: return .nothing
            case .failed: return .unknown
            }
        }
        if !restored.isEmpty {
            logger.info(
                "remote deletes cut short by the last stop are applied again",
                metadata: ["folder": "\(folder)", "paths": "\(restored.count)"])
        }
        return .resolved(restoredAny: !restored.isEmpty)
    }

    /// Removes download staging files an interrupted run left in the folder (no download
    /// runs before the first scan), except a partial download's kept over the daemon's last
    /// stop (decision 0036); one on its way to the trash goes there (`keepInTrash`).
    func removeStagingFiles(_ paths: [String]) {
        var intents: [String: DeleteIntent]?
        for path in paths where partials?.holds(staging: path) != true {
            if path.split(separator: "/").last?.hasPrefix(Materializer.trashStagingPrefix) == true {
                do {
                    let known = try intents ?? Dictionary(
                        index.records.deleteIntents.left(folder: folder).intents.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
                    intents = known
                    keepInTrash(path, intents: known)
                } catch {
                    // Not judged without the intents: left where it is, for the next start.
                    logger.error("cannot read the remote deletes under way; a file on its way to the trash stays", metadata: [
                        "folder": "\(folder)", "path": "\(path)", "error": "\(error)",
                    ])
                }
                continue
            }
            do {
                let staged = try root.parent(of: path)
                if unlinkat(staged.directory.fd, staged.name, 0) != 0 && errno != ENOENT {
                    logger.warning(
                        "cannot remove a staging file", metadata: ["path": "\(path)", "error": "\(String(cString: strerror(errno)))"])
                    continue
                }
                logger.info("removed a staging file an interrupted run left", metadata: ["folder": "\(folder)", "path": "\(path)"])
            } catch {
                logger.warning("cannot remove a staging file", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }

    /// A file a remote delete was moving to a trash on another file system when the last stop
    /// cut it short (`intents`: the remote deletes an earlier process left, by path).
    /// - Still the file the delete planned (its intent's inode, and the size, mtime and mode
    ///   recorded when it was planned), or with no intent to say (a file replaced by a
    ///   directory has none): the delete is done (its intent finds the path empty), and the
    ///   file goes to the trash now, under its own name (`interrupted-<number>` when that did
    ///   not fit in the staging name), rather than being lost with the staging files.
    /// - Written since it was planned (the kill came before the check that puts such a file
    ///   back): put back at its path, and journaled. Its intent then finds another ctime there
    ///   and lets the delete stand; the push of the file undoes it (an edit beats a delete).
    /// (Left where it is, with an error logged, when that fails: the next start tries again.)
    func keepInTrash(_ path: String, intents: [String: DeleteIntent]) {
        let materializer = Materializer(root: root.path, trashRoot: trash.root, pin: root.pin)
        let staged = String(path.split(separator: "/").last ?? "")
        let original = Materializer.originalName(fromTrashStaging: staged)
        let directory = path.split(separator: "/").dropLast().joined(separator: "/")
        let originalPath = original.map { directory.isEmpty ? $0 : directory + "/" + $0 }
        if let originalPath, let intent = intents[originalPath], let planned = intent.previousLocal, case .found(let now) = root.lstat(path),
            now.inode != intent.inode || now.size != planned.size || now.mtimeNs != planned.mtimeNs || now.mode != planned.mode
        {
            if putBack(path, to: originalPath) { return }
        }
        let name = original ?? "interrupted-" + staged.dropFirst(Materializer.trashStagingPrefix.count)
        do {
            let changed = try materializer.moveToTrash(path, kind: .file, stamp: Trash.stamp(), trashName: name)
            try FileAssembler.syncRenames(in: changed)
            logger.warning(
                "a file that a remote delete was moving to the trash when the last stop cut it short is now in the trash",
                metadata: ["folder": "\(folder)", "path": "\(path)"])
        } catch {
            logger.error("cannot move a file left on its way to the trash", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    /// A written file left on its way to the trash, back at its path (never over anything
    /// there), and journaled; false when it cannot go back (then it goes to the trash).
    private func putBack(_ path: String, to originalPath: String) -> Bool {
        do {
            let staged = try root.parent(of: path)
            let target = try root.parent(of: originalPath)
            guard staged.renameNoReplace(to: target) == 0 else {
                logger.warning(
                    "a file written while a remote delete moved it cannot go back to its place (something is there): it goes to the trash",
                    metadata: ["folder": "\(folder)", "path": "\(originalPath)", "error": "\(String(cString: strerror(errno)))"])
                return false
            }
            try FileAssembler.syncRenames(in: [target.directory])
            try index.journal.enqueue(folder: folder, paths: [originalPath])
            logger.warning(
                "a file written while a remote delete moved it, when the last stop cut that short, is back at its place",
                metadata: ["folder": "\(folder)", "path": "\(originalPath)"])
            return true
        } catch {
            logger.error("cannot put back a file written while a remote delete moved it", metadata: [
                "folder": "\(folder)", "path": "\(originalPath)", "error": "\(error)",
            ])
            return true  // (where it is now: in its place, or still staged for the next start)
        }
    }
}
