import SyncCore

/// The base records a committed server-side move leaves on the mover. Pure.
///
/// The server answers a move with the entries it moved, in path order
/// (`moved`); the i-th arrived at its new path at `firstRev + i` and its old
/// path became a tombstone at `firstRev + 2n - 1 - i`. So the mover knows
/// each new revision without waiting for the feed, and a stale feed entry
/// older than the move (its own earlier commits still on their way) finds a
/// newer base and does nothing.
public enum MoveRecords {
    /// `known`: the live base records at and below `from` before the move.
    /// Returns, for each of them the server moved, its tombstone at the old
    /// path and its base at the new one — at the arrival rev when the server
    /// moved the version this device knew, else at the old rev (so the feed
    /// brings the server's newer version and plans it against this base).
    /// Known entries the server did not move (deleted there meanwhile) get no
    /// new base: the op of the new path pushes them as new.
    public static func bases(known: [BaseRecord], moved: [MovedEntry], firstRev: Int64, from: String, to: String)
        -> [BaseRecord]
    {
        let n = Int64(moved.count)
        var index: [String: (i: Int64, rev: Int64)] = [:]
        for (i, entry) in moved.enumerated() { index[entry.path] = (Int64(i), entry.rev) }
        var out: [BaseRecord] = []
        for base in known {
            guard let (i, serverRev) = index[base.path] else { continue }
            var gone = base
            gone.deleted = true
            gone.rev = firstRev + 2 * n - 1 - i
            var arrived = base
            arrived.path = RelativePath.moved(base.path, from: from, to: to)
            arrived.rev = serverRev == base.rev ? firstRev + i : base.rev
            out += [gone, arrived]
        }
        return out
    }
}
