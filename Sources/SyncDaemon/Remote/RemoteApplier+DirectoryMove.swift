import Logging
import SyncCore

extension RemoteApplier {
    /// Applies the directory move that `arrival` (a directory naming its old path) begins,
    /// as one rename of the directory, made durable, and its records re-keyed in one
    /// transaction (`DirectoryMovePlan`). Returns the page's entries that this applied, or
    /// nil if the move is left to the one-by-one way (nothing was changed then).
    func moveDirectoryWhole(
        _ arrival: WireEntry, page: PageEntries, skip: @escaping @Sendable (String, Bool) -> Bool, into outcome: inout Outcome
    ) -> [WireEntry]? {
        guard let old = arrival.movedFrom else { return nil }
        let new = arrival.path
        let here: DirectoryMovePlan.Here
        do {
            // A move of ours waiting to be pushed re-keys rows when it commits, which this
            // one could cross (as a directory download does, this waits for it).
            guard try !index.journal.hasPendingMove(folder: folder) else {
                throw DaemonError(.changedMeanwhile, "a local move waits to be pushed", path: new)
            }
            here = try look(from: old, to: new, skip: skip)
        } catch {
            logger.debug("a remote directory move goes one by one", metadata: ["path": "\(new)", "error": "\(error)"])
            return nil
        }
        let plan: DirectoryMovePlan
        switch DirectoryMovePlan.plan(arrival: arrival, entries: page.within(new) + page.within(old), here: here) {
        case .failure(let why):
            logger.debug("a remote directory move goes one by one", metadata: ["path": "\(new)", "from": "\(old)", "why": "\(why)"])
            return nil
        case .success(let p): plan = p
        }
        do {
            try carryOut(plan, arrival, from: old, here: here, skip: skip, into: &outcome)
        } catch {
            logger.debug("a remote directory move goes one by one", metadata: ["path": "\(new)", "error": "\(error)"])
            return nil
        }
        logger.debug("remote directory move renamed whole", metadata: ["path": "\(new)", "from": "\(old)", "entries": "\(here.bases.count)"])
        return plan.applied
    }

    /// What this device holds at the move's old and new paths, on disk and in the index.
    private func look(from old: String, to new: String, skip: @escaping @Sendable (String, Bool) -> Bool) throws
        -> DirectoryMovePlan.Here
    {
        let records = try index.records.subtree(folder: folder, at: old)
        let atNew = try index.records.subtree(folder: folder, at: new)
        let directory: FileStat?
        switch materializer.folder.lstat(old) {
        case .found(let stat): directory = stat
        case .missing, .unsupported, .failed: directory = nil
        }
        let newOnDisk: Bool
        if case .missing = materializer.folder.lstat(new) { newOnDisk = false } else { newOnDisk = true }
        let scan = try Scanner(root: materializer.root, skip: skip).scan(below: old)
        return DirectoryMovePlan.Here(
            bases: records.bases, locals: records.locals, found: scan.items, directory: directory,
            scanWhole: scan.errors.isEmpty && scan.undecodableNames.isEmpty && scan.stagingFiles.isEmpty,
            newPathTaken: newOnDisk || !atNew.locals.isEmpty || !atNew.bases.isEmpty)
    }

    /// Renames the directory, then writes the records: the moved ones re-keyed, the page's
    /// bases, the directory's new stat. What the user wrote in the old directory between
    /// the look and the rename moved along: its records are dropped and it is journaled.
    private func carryOut(
        _ plan: DirectoryMovePlan, _ arrival: WireEntry, from old: String, here: DirectoryMovePlan.Here,
        skip: @escaping @Sendable (String, Bool) -> Bool, into outcome: inout Outcome
    ) throws {
        let new = arrival.path
        guard let inode = here.directory?.inode, let top = here.bases.first(where: { $0.path == old }) else {
            throw DaemonError(.changedMeanwhile, "not as looked at", path: old)
        }
        // Its rename's events need no journaling: the records are written here.
        echoes.expectMove(new, inode: inode)
        let stat: FileStat
        do {
            stat = try materializer.moveDirectory(old, to: new, inode: inode)
        } catch {
            echoes.forgetMove(new)
            throw error
        }
        CrashPoint.reached(.beforeMoveRecorded, path: new)
        // Looked at again where it is now: what differs from the look before the rename was
        // written by the user in between (its events named the old path, and found nothing).
        let before = Dictionary(here.found.map { (RelativePath.moved($0.path, from: old, to: new), $0.stat) }, uniquingKeysWith: { a, _ in a })
        var changed: [String] = []
        do {
            for item in try Scanner(root: materializer.root, skip: skip).scan(below: new).items {
                guard let was = before[item.path], item.stat.kind == was.kind, item.stat.kind == .directory || item.stat == was
                else {
                    changed.append(item.path)
                    continue
                }
            }
        } catch {
            // Unreadable now: everything in it is looked at again.
            changed = [new]
        }
        var update = IndexUpdate()
        update.moves = [(old, new)]
        update.bases = plan.applied.map(\.baseRecord)
        update.locals = [arrival.localRecord(stat: stat)]
        update.removedLocals = changed.filter { $0 != new }
        do {
            try index.records.apply(folder: folder, update, ifBase: top, at: old)
        } catch {
            // A push recorded the old directory meanwhile: put it back, and go one by one.
            echoes.forgetMove(new)
            try materializer.moveDirectoryBack(new, from: old)
            throw error
        }
        outcome.pushes += changed
    }
}

/// A feed page's entries in the order of their paths' bytes, for the entries at and below
/// a path.
struct PageEntries: Sendable {
    private let sorted: [WireEntry]

    init(_ entries: [WireEntry]) {
        sorted = entries.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    /// The entries at `path` and below it.
    func within(_ path: String) -> [WireEntry] {
        // Those below it sort together, from `path/` on (after `path` itself and names
        // that continue it with a byte before `/`).
        var result = sorted[firstIndex(notBefore: path)...].prefix { $0.path == path }.map { $0 }
        let below = path + "/"
        result += sorted[firstIndex(notBefore: below)...].prefix { $0.path.utf8.starts(with: below.utf8) }
        return result
    }

    private func firstIndex(notBefore path: String) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].path.utf8.lexicographicallyPrecedes(path.utf8) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
