import SyncCore

/// A directory another device moved reaches us as an arrival per entry at the new place
/// (each naming its old path, `movedFrom`) and a departure per entry at the old one. When
/// this device holds exactly what was moved, unchanged since it was synced, the move is
/// applied as one rename of the directory and its records re-keyed in one transaction,
/// instead of a rename and a transaction per file. Anything else (a file edited, added or
/// deleted here, an entry the page does not move along, something at the new place) is
/// left to the one-by-one way, which looks at each path. Pure: the caller reads the records
/// and the disk, and carries the plan out.
struct DirectoryMovePlan: Sendable, Equatable {
    /// The page's entries the rename applies: the arrivals at and below the new path and
    /// the departures at and below the old one (their bases are written with the move).
    var applied: [WireEntry]

    /// What this device holds at and below the directory's old and new paths.
    struct Here: Sendable {
        /// Live base records at and below the old path.
        var bases: [BaseRecord]
        /// Local records at and below the old path.
        var locals: [LocalRecord]
        /// What the disk holds below the old path (not the directory itself).
        var found: [ScannedItem]
        /// The old directory holds entries this device skips (ignored, or its own state):
        /// they would move along, where other rules, or none, apply to them.
        var holdsSkipped: Bool
        /// The old path's own stat (nil: nothing there).
        var directory: FileStat?
        /// The scan of the old directory was whole: no unreadable directory, no name that is
        /// not UTF-8, no staging file of an interrupted download.
        var scanWhole: Bool
        /// Anything at the new path: on disk, or a live base or a local record at or below it.
        var newPathTaken: Bool
    }

    /// Why a move is left to the one-by-one way (for the log).
    struct NotWhole: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
    }

    /// The plan for the arrival `arrival` (a directory, `movedFrom` its old path) among the
    /// page's `entries` at and below its new and old paths.
    static func plan(arrival: WireEntry, entries: [WireEntry], here: Here) -> Result<DirectoryMovePlan, NotWhole> {
        func no(_ why: String) -> Result<DirectoryMovePlan, NotWhole> { .failure(NotWhole(description: why)) }
        if let why = pageCheck(arrival: arrival, entries: entries, bases: here.bases) { return .failure(why) }
        guard let old = arrival.movedFrom else { return no("not a directory's arrival") }
        guard !here.newPathTaken else { return no("something is at the new path here") }
        let bases = Dictionary(here.bases.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        guard let top = bases[old], let directory = here.directory, directory.kind == .directory, here.scanWhole,
            !here.holdsSkipped, Self.sameMode(directory, top)
        else { return no("the old directory is not as synced") }
        // This device's copy is the synced one, untouched: each file's stat is the one
        // recorded with the synced content, and nothing else is there.
        let locals = Dictionary(here.locals.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        guard here.found.count + 1 == bases.count else { return no("\(here.found.count) entries on disk, \(bases.count - 1) synced") }
        for item in here.found {
            guard let base = bases[item.path], base.kind == item.stat.kind, Self.sameMode(item.stat, base) else {
                return no("\(item.path) changed here")
            }
            // A directory's own stat changes with what is in it: its kind and mode are what count.
            guard base.kind == .directory
                || (locals[item.path].map { $0.matches(item.stat) && $0.contentHash == base.contentHash } ?? false)
            else { return no("\(item.path) changed here") }
        }
        return .success(DirectoryMovePlan(applied: entries.filter {
            RelativePath.isWithin($0.path, arrival.path) || RelativePath.isWithin($0.path, old)
        }))
    }

    /// What the page and the index alone say (no disk needed, so looked at first): nil when
    /// every entry the page has at or below the new path is an arrival from the matching old
    /// path, of what this device has synced there, nothing is live at or below the old path,
    /// and every synced entry there moves; else why not.
    static func pageCheck(arrival: WireEntry, entries: [WireEntry], bases here: [BaseRecord]) -> NotWhole? {
        func no(_ why: String) -> NotWhole { NotWhole(description: why) }
        guard let old = arrival.movedFrom, arrival.kind == .directory, !arrival.deleted else { return no("not a directory's arrival") }
        let new = arrival.path
        // Paths are compared by their bytes (as the index and the disk do): only NFC ones.
        guard isNormal(old), isNormal(new) else { return no("a path not in NFC") }
        guard !RelativePath.isWithin(old, new), !RelativePath.isWithin(new, old) else { return no("moved into itself") }
        let bases = Dictionary(here.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        guard let top = bases[old], top.kind == .directory else { return no("the old directory is not synced here") }
        var arrivals: [String: WireEntry] = [:]
        for entry in entries {
            guard isNormal(entry.path) else { return no("a path not in NFC") }
            if RelativePath.isWithin(entry.path, new) {
                guard !entry.deleted, let from = entry.movedFrom, isNormal(from),
                    from.utf8.elementsEqual(RelativePath.moved(entry.path, from: new, to: old).utf8)
                else { return no("the page changes \(entry.path) otherwise") }
                arrivals[from] = entry
            } else if RelativePath.isWithin(entry.path, old) {
                guard entry.deleted else { return no("the page brings \(entry.path) back") }
            }
        }
        guard arrivals.count == bases.count else { return no("the page moves \(arrivals.count) entries, \(bases.count) are synced here") }
        for (path, base) in bases {
            guard let entry = arrivals[path], entry.kind == base.kind, entry.contentHash == base.contentHash,
                entry.baseRecord.mode == base.mode, entry.rev > base.rev
            else { return no("\(path) moved as other content than synced here") }
        }
        return nil
    }

    /// A valid path already in NFC (the form the index and the disk hold).
    static func isNormal(_ path: String) -> Bool {
        do {
            return try RelativePath(validating: path).string.utf8.elementsEqual(path.utf8)
        } catch {
            return false
        }
    }

    /// The mode on disk is the synced one (or the synced one is not known).
    private static func sameMode(_ stat: FileStat, _ base: BaseRecord) -> Bool {
        base.mode == nil || Modes.known(stat.mode) == base.mode
    }
}
