import SyncCore

/// What a commit decides, as a value: which changes are accepted, the revision each gets, the
/// rows it writes, and what each result says. Pure: a metadata store reads what `reads(of:)`
/// names inside its transaction, hands it over as a `CommitSnapshot`, and writes `writes`;
/// SQLite and PostgreSQL decide the same way because they share this.
///
/// The rules (docs/protocol.md): a change is accepted iff the path's current rev equals its
/// `baseRev` (0 = absent or a tombstone); accepted changes get the folder's next revs in order.
/// A move (`moveFrom`) needs a live source at its base rev and of its kind, and a destination
/// with nothing live at or below it; the source and everything live below it arrive at the new
/// path first (each carrying `moved_from`), then the old paths become tombstones, children
/// first. Changes see the effect of the changes before them in the same commit.
struct CommitPlan {
    private(set) var results: [CommitResult] = []
    /// Rows to write, in rev order: each is the path's new current entry and a history row.
    private(set) var writes: [WireEntry] = []
    /// The live paths the commit wrote (changes and move targets), for `Containment`.
    private(set) var touched: [(path: String, kind: EntryKind)] = []
    private(set) var rev: Int64

    /// What the store read (`reads(of:)`, then `containmentReads()`).
    private var base: CommitSnapshot
    /// What this commit wrote so far, by path (the latest write wins).
    private var written: [String: WireEntry] = [:]
    /// Every ancestor directory of a written path: a prefix scan of `written` is needed only there.
    private var writtenAncestors: Set<String> = []

    /// Paths whose entries the plan needs, and the paths below which it needs every live entry.
    static func reads(of changes: [CommitChange]) -> CommitReads {
        var reads = CommitReads()
        for change in changes {
            reads.paths.insert(change.path)
            if let from = change.moveFrom {
                reads.paths.insert(from)
                reads.subtrees.insert(from)
                reads.subtrees.insert(change.path)
            }
        }
        return reads
    }

    init(changes: [CommitChange], folderRev: Int64, device: String, base: CommitSnapshot) {
        self.rev = folderRev
        self.base = base
        results.reserveCapacity(changes.count)
        for change in changes {
            if let from = change.moveFrom {
                move(change, from: from, device: device)
                continue
            }
            let current = entry(at: change.path)
            guard Self.accepts(baseRev: change.baseRev, current: current.map { ($0.rev, $0.deleted) }) else {
                results.append(CommitResult(path: change.path, status: .conflict, rev: current?.rev ?? 0, current: current))
                continue
            }
            rev += 1
            write(Self.entry(change, rev: rev, device: device))
            results.append(CommitResult(path: change.path, status: .ok, rev: rev))
            if !change.deleted { touched.append((change.path, change.kind)) }
        }
    }

    /// Adds what the store read for `containmentReads()`.
    mutating func add(_ read: CommitSnapshot) { base.add(read) }

    /// The conflict rule.
    static func accepts(baseRev: Int64, current: (rev: Int64, deleted: Bool)?) -> Bool {
        guard let current else { return baseRev == 0 }
        return current.rev == baseRev || (current.deleted && baseRev == 0)
    }

    /// The entry at `path` as this commit left it so far (nil: no row).
    func entry(at path: String) -> WireEntry? { written[path] ?? base.entries[path] }

    /// The live entries strictly below `path`, by path, as this commit left them so far.
    func liveEntries(below path: String) -> [WireEntry] {
        var byPath: [String: WireEntry] = [:]
        for entry in base.below[path] ?? [] { byPath[entry.path] = entry }
        if writtenAncestors.contains(path) {
            let prefix = path + "/"
            for (child, entry) in written where child.hasPrefix(prefix) { byPath[child] = entry }
        }
        return byPath.values.filter { !$0.deleted }.sorted { $0.path < $1.path }
    }

    private mutating func move(_ change: CommitChange, from: String, device: String) {
        let source = entry(at: from)
        guard let source, !source.deleted, source.rev == change.baseRev, source.kind == change.kind else {
            results.append(CommitResult(path: change.path, status: .conflict, rev: source?.rev ?? 0, current: source))
            return
        }
        if let blocker = occupant(of: change.path) {
            results.append(CommitResult(path: change.path, status: .conflict, rev: blocker.rev, current: blocker))
            return
        }
        let moving = [source] + (source.kind == .directory ? liveEntries(below: from) : [])
        let first = rev + 1
        let targets = moving.map { RelativePath.moved($0.path, from: from, to: change.path) }
        for (entry, target) in zip(moving, targets) {
            rev += 1
            var arrival = Self.moved(entry, rev: rev, device: device)
            arrival.path = target
            arrival.movedFrom = entry.path
            write(arrival)
            touched.append((target, entry.kind))
        }
        for (entry, target) in zip(moving, targets).reversed() {
            rev += 1
            var departure = Self.moved(entry, rev: rev, device: device)
            departure.deleted = true
            departure.movedTo = target
            write(departure)
        }
        results.append(
            CommitResult(path: change.path, status: .ok, rev: first, moved: moving.map { MovedEntry(path: $0.path, rev: $0.rev) }))
    }

    /// A live entry at `path` or below it: the destination of a move must be free.
    private func occupant(of path: String) -> WireEntry? {
        if let here = entry(at: path), !here.deleted { return here }
        return liveEntries(below: path).first
    }

    private mutating func write(_ entry: WireEntry) {
        writes.append(entry)
        written[entry.path] = entry
        writtenAncestors.formUnion(Self.ancestors(of: entry.path))
    }

    private static func entry(_ change: CommitChange, rev: Int64, device: String) -> WireEntry {
        WireEntry(
            path: change.path, kind: change.kind, size: change.size, mtimeNs: change.mtimeNs, mode: change.mode,
            chunks: change.chunks, contentHash: change.contentHash, deleted: change.deleted, rev: rev,
            symlinkTarget: change.symlinkTarget, device: device)
    }

    /// The entry's content at a new rev by `device`, without the old move marks.
    private static func moved(_ entry: WireEntry, rev: Int64, device: String) -> WireEntry {
        var copy = entry
        copy.rev = rev
        copy.device = device
        copy.deleted = false
        copy.movedFrom = nil
        copy.movedTo = nil
        return copy
    }
}

/// What a commit's plan needs read before it decides (or before its containment check).
struct CommitReads: Equatable {
    /// The entry (live or tombstone) at each of these paths.
    var paths: Set<String> = []
    /// Every live entry strictly below each of these paths.
    var subtrees: Set<String> = []

    var isEmpty: Bool { paths.isEmpty && subtrees.isEmpty }
}

/// The rows a store read for `CommitReads`, inside the commit's transaction.
struct CommitSnapshot {
    /// The entry at each read path that has a row.
    var entries: [String: WireEntry] = [:]
    /// The live entries below each read subtree (an empty list when there are none).
    var below: [String: [WireEntry]] = [:]

    mutating func add(_ other: CommitSnapshot) {
        entries.merge(other.entries) { old, _ in old }
        below.merge(other.below) { old, _ in old }
    }
}
