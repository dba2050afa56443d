import SyncCore

/// Small new files of a feed page gathered for one `BatchDownload`, in page order, until
/// the batch is full: `BatchDownload.batchMaxFiles` files, `batchMaxBytes` bytes (held in
/// memory until staged) or `batchMaxDirectories` parent directories (each held open until
/// its files are placed).
struct PendingBatch {
    private(set) var entries: [WireEntry] = []
    private var bytes: Int64 = 0
    private var directories = Set<Substring>()

    var isEmpty: Bool { entries.isEmpty }

    var isFull: Bool {
        entries.count >= BatchDownload.batchMaxFiles || bytes >= BatchDownload.batchMaxBytes
            || directories.count >= BatchDownload.batchMaxDirectories
    }

    mutating func add(_ entry: WireEntry) {
        entries.append(entry)
        bytes += entry.size
        directories.insert(entry.path.lastIndex(of: "/").map { entry.path[..<$0] } ?? "")
    }

    /// The entries gathered; the batch is empty afterwards.
    mutating func take() -> [WireEntry] {
        defer { self = PendingBatch() }
        return entries
    }

    /// Whether `entry` may be applied while the batch is still pending, the batch going on
    /// after it: a new directory that no move brings. Entries sort parents first, so no
    /// gathered file is below it; applied one by one, it changes nothing a gathered file
    /// was or will be planned against. Anything else is applied after the batch, in page
    /// order (a delete or a move may concern a gathered file's place).
    static func mayPass(_ entry: WireEntry, moves: [String: String]) -> Bool {
        !entry.deleted && entry.kind == .directory && moves[entry.path] == nil
    }
}
