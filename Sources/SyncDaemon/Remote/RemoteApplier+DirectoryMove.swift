import Logging
import SyncCore
import Synchronization

extension RemoteApplier {
    /// Applies the directory move that `arrival` (a directory naming its old path) begins,
    /// as one rename of the directory, made durable, and its records re-keyed in one
    /// transaction (`DirectoryMovePlan`). Returns the page's entries that this applied, or
    /// nil if the move is left to the one-by-one way (which finds the directory where it
    /// is: at its old path, or, if the rename could not be undone, at the new one).
    func moveDirectoryWhole(
        _ arrival: WireEntry, page: PageEntries, skip: @escaping @Sendable (String, Bool) -> Bool, into outcome: inout Outcome
    ) -> [WireEntry]? {
        guard let old = arrival.movedFrom else { return nil }
        let new = arrival.path
        let entries = page.within(new) + page.within(old)
        func oneByOne(_ why: any Error) -> [WireEntry]? {
            logger.debug("a remote directory move goes one by one", metadata: ["path": "\(new)", "from": "\(old)", "why": "\(why)"])
            return nil
        }
        let here: DirectoryMovePlan.Here
        do {
            // A move of ours waiting to be pushed re-keys rows when it commits, which this
            // one could cross (as a directory download does, this waits for it).
            guard try !index.journal.hasPendingMove(folder: folder) else {
                throw DaemonError(.changedMeanwhile, "a local move waits to be pushed", path: new)
            }
            // The page and the index first: the disk is looked at only for a move they allow.
            let records = try index.records.subtree(folder: folder, at: old)
            if let why = DirectoryMovePlan.pageCheck(arrival: arrival, entries: entries, bases: records.bases) { return oneByOne(why) }
            here = try look(from: old, to: new, records: records, skip: skip)
        } catch {
            return oneByOne(error)
        }
        let plan: DirectoryMovePlan
        switch DirectoryMovePlan.plan(arrival: arrival, entries: entries, here: here) {
        case .failure(let why): return oneByOne(why)
        case .success(let p): plan = p
        }
        do {
            try carryOut(plan, arrival, from: old, here: here, skip: skip, into: &outcome)
        } catch {
            return oneByOne(error)
        }
        logger.debug("remote directory move renamed whole", metadata: ["path": "\(new)", "from": "\(old)", "entries": "\(here.bases.count)"])
        return plan.applied
    }

    /// What this device holds at the move's old and new paths, on disk and in the index.
    private func look(
        from old: String, to new: String, records: (locals: [LocalRecord], bases: [BaseRecord]),
        skip: @escaping @Sendable (String, Bool) -> Bool
    ) throws -> DirectoryMovePlan.Here {
        let atNew = try index.records.subtree(folder: folder, at: new)
        let directory: FileStat?
        switch materializer.folder.lstat(old) {
        case .found(let stat): directory = stat
        case .missing, .unsupported, .failed: directory = nil
        }
        let newOnDisk: Bool
        if case .missing = materializer.folder.lstat(new) { newOnDisk = false } else { newOnDisk = true }
        let skipped = SkipWitness()
        let scan = try Scanner(root: materializer.root, skip: skipped.watching(skip)).scan(below: old)
        return DirectoryMovePlan.Here(
            bases: records.bases, locals: records.locals, found: scan.items, holdsSkipped: skipped.saw, directory: directory,
            scanWhole: scan.errors.isEmpty && scan.undecodableNames.isEmpty && scan.stagingFiles.isEmpty,
            newPathTaken: newOnDisk || !atNew.locals.isEmpty || !atNew.bases.isEmpty)
    }

    /// Renames the directory, then writes the records: the moved ones re-keyed, the page's
    /// bases, the directory's new stat. What the user changed in the old directory between
    /// the look and the rename moved along (or went): those records are dropped and those
    /// paths journaled.
    private func carryOut(
        _ plan: DirectoryMovePlan, _ arrival: WireEntry, from old: String, here: DirectoryMovePlan.Here,
        skip: @escaping @Sendable (String, Bool) -> Bool, into outcome: inout Outcome
    ) throws {
        let new = arrival.path
        guard let looked = here.directory, let top = here.bases.first(where: { $0.path == old }) else {
            throw DaemonError(.changedMeanwhile, "not as looked at", path: old)
        }
        // Its rename's events need no journaling: the records are written here.
        echoes.expectMove(new, inode: looked.inode)
        let stat: FileStat
        do {
            stat = try materializer.moveDirectory(old, to: new, inode: looked.inode)
        } catch {
            echoes.forgetMove(new)
            throw error
        }
        CrashPoint.reached(.beforeMoveRecorded, path: new)
        let changed = changedMeanwhile(here, from: old, to: new, now: stat, skip: skip)
        var update = IndexUpdate()
        update.moves = [(old, new)]
        update.bases = plan.applied.map(\.baseRecord)
        if changed.contains(new) {
            // Every record below it goes (each path is looked at again), its own with them.
            update.removedLocals = [new]
        } else {
            update.locals = [arrival.localRecord(stat: stat)]
            update.removedLocals = changed
        }
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

    /// What differs, after the rename, from the look before it: each path there now that was
    /// not, or not so (a file's stat, a directory's inode or mode), and each path the look
    /// found that is gone. The user changed those in between, and the events named the old
    /// paths, where their ops find nothing. `new` itself when the directory's own mode
    /// changed, or when it cannot be read whole now: then every path the look found too.
    private func changedMeanwhile(
        _ here: DirectoryMovePlan.Here, from old: String, to new: String, now top: FileStat,
        skip: @escaping @Sendable (String, Bool) -> Bool
    ) -> [String] {
        var before: [String: FileStat] = [:]
        for item in here.found { before[RelativePath.moved(item.path, from: old, to: new)] = item.stat }
        let everything = [new] + before.keys.sorted()
        guard let looked = here.directory, Self.sameDirectory(top, looked) else { return everything }
        let skipped = SkipWitness()
        let scan: ScanResult
        do {
            scan = try Scanner(root: materializer.root, skip: skipped.watching(skip)).scan(below: new)
        } catch {
            return everything
        }
        guard scan.errors.isEmpty, scan.undecodableNames.isEmpty, !skipped.saw else { return everything }
        var changed: [String] = []
        for item in scan.items {
            let was = before.removeValue(forKey: item.path)
            guard let was, item.stat.kind == was.kind,
                item.stat.kind == .directory ? Self.sameDirectory(item.stat, was) : item.stat == was
            else {
                changed.append(item.path)
                continue
            }
        }
        return changed + before.keys.sorted()
    }

    /// The same directory with the same mode (its size, times and ctime change with what is in it).
    private static func sameDirectory(_ a: FileStat, _ b: FileStat) -> Bool {
        a.kind == .directory && b.kind == .directory && a.inode == b.inode && a.mode == b.mode
    }
}

/// Whether a scan's `skip` said yes to anything (an entry it then left out).
final class SkipWitness: Sendable {
    private let seen = Atomic<Bool>(false)

    var saw: Bool { seen.load(ordering: .relaxed) }

    /// `skip`, noting each yes.
    func watching(_ skip: @escaping @Sendable (String, Bool) -> Bool) -> @Sendable (String, Bool) -> Bool {
        { path, isDirectory in
            let skipped = skip(path, isDirectory)
            if skipped { self.seen.store(true, ordering: .relaxed) }
            return skipped
        }
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
