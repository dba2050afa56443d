/// What a full scan compares the disk with: every path the index knows — with the stat it
/// was last synced at (a local record), a live entry the server has (a live base), or
/// both — in one array, found by one dictionary lookup per path on disk.
struct ScanBaseline: Sendable {
    struct Synced: Sendable {
        /// The stat it was last synced at: equal means unchanged, no need to read it.
        var stat: FileStat
        /// The base agrees: live, same kind, same content hash.
        var inSync: Bool
    }

    struct Known: Sendable {
        var path: String
        /// Its local record (nil: none).
        var synced: Synced?
        /// A live base has it: whether as a directory (nil: no live base).
        var liveBaseIsDirectory: Bool?
    }

    /// Every known path, each once.
    private(set) var known: [Known] = []
    /// A path's place in `known`.
    private(set) var positions: [String: Int] = [:]
    /// How many known paths the server has live.
    private(set) var liveBaseCount = 0
    /// Paths this device put on the server in a commit whose reply is not recorded yet (the
    /// outbox: a stop or a lost reply came between), with no live base here: read in the same
    /// snapshot as the bases, so a commit recorded meanwhile is counted once, as a base.
    var unrecordedLiveCount = 0

    /// Entries the server has, or may have, from this folder: a root found empty while some
    /// are known is not taken as deletes.
    var syncedEntryCount: Int { liveBaseCount + unrecordedLiveCount }

    init() {}

    /// A known path; its records are merged with those added before for it.
    mutating func add(_ path: String, synced: Synced? = nil, liveBaseIsDirectory: Bool? = nil) {
        if let at = positions[path] {
            if let synced { known[at].synced = synced }
            if let liveBaseIsDirectory {
                if known[at].liveBaseIsDirectory == nil { liveBaseCount += 1 }
                known[at].liveBaseIsDirectory = liveBaseIsDirectory
            }
            return
        }
        positions[path] = known.count
        known.append(Known(path: path, synced: synced, liveBaseIsDirectory: liveBaseIsDirectory))
        if liveBaseIsDirectory != nil { liveBaseCount += 1 }
    }

    mutating func reserveCapacity(_ count: Int) {
        known.reserveCapacity(count)
        positions.reserveCapacity(count)
    }
}
