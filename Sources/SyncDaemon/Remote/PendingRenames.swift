import SyncCore

/// Files a page's remote moves renamed, whose records wait for one barrier and one index
/// transaction (`RemoteApplier.recordRenames`): a run of renames costs two directory fsyncs
/// (or one `syncfs`) and one commit, not a commit each, and no rename is recorded before it
/// is durable. A run ends before anything else of the page is applied, before a rename from
/// or to a path it renamed (a chain: p1→p0, p2→p1), and at `limit`.
struct PendingRenames: Sendable {
    private(set) var updates: [GuardedUpdate] = []
    private(set) var moves: [(arrival: WireEntry, departure: WireEntry)] = []
    /// The directories renamed in and out of.
    private(set) var barrier = BarrierDirectories()
    /// The paths renamed from and to: a rename touching one of them is planned against
    /// records this run has not written yet, so it starts a new run.
    private var paths: Set<String> = []

    /// Renames recorded together at most (their directories are held open until then).
    static let limit = 256

    var isEmpty: Bool { moves.isEmpty }
    var isFull: Bool { moves.count >= Self.limit }

    /// Whether a rename of this run was from or to `path`.
    func touches(_ path: String) -> Bool { paths.contains(path) }

    mutating func add(_ update: GuardedUpdate, arrival: WireEntry, departure: WireEntry, directories renamed: [DirectoryHandle]) {
        updates.append(update)
        moves.append((arrival, departure))
        paths.insert(arrival.path)
        paths.insert(departure.path)
        barrier.add(renamed)
    }
}
