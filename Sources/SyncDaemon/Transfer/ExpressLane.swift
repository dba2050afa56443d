/// Which local changes skip the queue while a bulk batch is in flight: a small edit made
/// during a 1 GiB upload or a 10,000-file push goes up beside it instead of behind it.
///
/// Only plain changes journaled after the bulk batch was claimed are candidates (not moves,
/// which the bulk lane orders; not deletes, which the delete-wave guard judges together),
/// and only small ones: a regular file of at most `maxFileBytes`, a directory, a symlink.
struct ExpressLane: Sendable {
    static let maxFileBytes: Int64 = 1 << 20
    /// At most this many paths per express batch.
    static let batchLimit = 32
    /// Candidates looked at per round (those refused are remembered for the bulk batch's life).
    static let candidateLimit = 128

    /// Whether what is at the path now may go in the express lane.
    static func admits(_ lookup: FileStat.Lookup) -> Bool {
        guard case .found(let stat) = lookup else { return false }
        switch stat.kind {
        case .file: return stat.size <= maxFileBytes
        case .directory, .symlink: return true
        }
    }
}
