import SyncCore

/// Batches of small downloads in page order, each one's chunks fetched while the batch
/// before it is planned, staged and placed: the network and the server work beside the
/// disk instead of before it. Only the chunks of files that will likely download into an
/// empty place are fetched ahead (no local record, nothing at the path): the rest are
/// planned first, as before. At most two batches' chunks are held (`batchMaxBytes` each),
/// and the fetch ahead has half of `max_concurrent` (the batch being applied may fetch too).
struct BatchPipeline {
    let applier: RemoteApplier
    let device: String
    let stamp: String
    private var waiting: (entries: [WireEntry], chunks: Task<ChunkFetcher.Fetched, Never>)?

    init(applier: RemoteApplier, device: String, stamp: String) {
        self.applier = applier
        self.device = device
        self.stamp = stamp
    }

    /// Starts fetching `entries`' chunks and applies the batch before it meanwhile.
    mutating func add(_ entries: [WireEntry], into outcome: inout RemoteApplier.Outcome) async {
        guard !entries.isEmpty else { return }
        let applier = self.applier
        let fetcher = ChunkFetcher(
            remote: applier.remote, folder: applier.folder, maxConcurrent: max(1, applier.fetchConcurrency / 2))
        let chunks = Task { await fetcher.fetch(Self.likelyFresh(entries, applier: applier).flatMap(\.chunks)) }
        await flush(into: &outcome)
        waiting = (entries, chunks)
    }

    /// Applies the batch waiting, if any (before an entry that may not pass it, and at the end).
    mutating func flush(into outcome: inout RemoteApplier.Outcome) async {
        guard let (entries, chunks) = waiting else { return }
        waiting = nil
        // A stop (or the folder's removal) cancels the fetch ahead too.
        let fetched = await withTaskCancellationHandler { await chunks.value } onCancel: { chunks.cancel() }
        await BatchDownload(applier: applier).apply(entries, prefetched: fetched, device: device, stamp: stamp, into: &outcome)
    }

    /// The entries with no local record and nothing at their path: those a batch downloads.
    private static func likelyFresh(_ entries: [WireEntry], applier: RemoteApplier) -> [WireEntry] {
        let local: [String: LocalRecord]
        do {
            local = try applier.index.records.read(folder: applier.folder, paths: entries.map(\.path)).local
        } catch {
            return []  // planned first, then fetched (and the index error reported there)
        }
        let root = applier.materializer.folder
        // Each directory is walked from the root once, and one found missing is not walked again.
        var open = OpenDirectories()
        var missingDirectories = Set<Substring>()
        return entries.filter { entry in
            guard local[entry.path] == nil else { return false }
            let directory = entry.path.lastIndex(of: "/").map { entry.path[..<$0] } ?? ""
            if missingDirectories.contains(directory) { return true }
            let (located, stat) = open.lookup(entry.path, in: root)
            guard case .missing = stat else { return false }
            // Missing without a location: its directory is not there.
            if located == nil { missingDirectories.insert(directory) }
            return true
        }
    }
}
