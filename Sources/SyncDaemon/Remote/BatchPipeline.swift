import SyncCore

/// Batches of small downloads in page order, each one's chunks fetched while the batch
/// before it is planned and staged, and each one placed while the batch after it is staged:
/// the network, the server, the staging (mostly the kernel creating files) and the placing
/// (mostly waiting for the disk: a `syncfs`, one index commit) work side by side instead
/// of in turn. Batches are placed one at a time, in page order. Only the chunks of files
/// that will likely download into an empty place are fetched ahead (no local record,
/// nothing at the path): the rest are planned first, as before. At most two batches'
/// chunks are held (`batchMaxBytes` each) and two batches staged, and the fetch ahead has
/// half of `max_concurrent` (the batch being staged may fetch too). What a batch placed is
/// recorded as landed by the next one's transaction, after the next one's `syncfs` made its
/// renames durable, and the last batch's at the end (`BatchDownload.Landing`).
struct BatchPipeline {
    let applier: RemoteApplier
    let device: String
    let stamp: String
    /// The next batch, its chunks on their way.
    private var waiting: (entries: [WireEntry], chunks: Task<ChunkFetcher.Fetched, Never>)?
    /// The batch before it, being placed; what that finds is merged when it is done, and
    /// what it leaves is applied one by one then.
    private var placing: Task<(outcome: RemoteApplier.Outcome, others: [WireEntry], landing: BatchDownload.Landing), Never>?
    /// What the batch placed last renamed into place, not yet recorded as landed.
    private var landing = BatchDownload.Landing()

    init(applier: RemoteApplier, device: String, stamp: String) {
        self.applier = applier
        self.device = device
        self.stamp = stamp
    }

    /// Starts fetching `entries`' chunks and stages the batch before it meanwhile.
    mutating func add(_ entries: [WireEntry], into outcome: inout RemoteApplier.Outcome) async {
        guard !entries.isEmpty else { return }
        let applier = self.applier
        let fetcher = ChunkFetcher(
            remote: applier.remote, folder: applier.folder, maxConcurrent: max(1, applier.fetchConcurrency / 2))
        let chunks = Task { await fetcher.fetch(Self.likelyFresh(entries, applier: applier).flatMap(\.chunks)) }
        await stageWaiting(into: &outcome)
        waiting = (entries, chunks)
    }

    /// Applies every batch (before an entry that may not pass them, and at the end), the
    /// last one recorded as landed too.
    mutating func flush(into outcome: inout RemoteApplier.Outcome) async {
        await stageWaiting(into: &outcome)
        await finishPlacing(into: &outcome)
        BatchDownload(applier: applier).record(landing, into: &outcome)
        landing = BatchDownload.Landing()
    }

    /// Stages the batch waiting, if any, while the one before it is placed; then places it
    /// once that is done.
    private mutating func stageWaiting(into outcome: inout RemoteApplier.Outcome) async {
        guard let (entries, chunks) = waiting else { return }
        waiting = nil
        // A stop (or the folder's removal) cancels the fetch ahead too.
        let fetched = await withTaskCancellationHandler { await chunks.value } onCancel: { chunks.cancel() }
        let download = BatchDownload(applier: applier)
        let staged = await download.stage(entries, prefetched: fetched)
        await finishPlacing(into: &outcome)
        let previous = landing
        landing = BatchDownload.Landing()
        placing = Task {
            var outcome = RemoteApplier.Outcome()
            let (others, landing) = await download.place(staged, after: previous, into: &outcome)
            return (outcome, others, landing)
        }
    }

    /// Waits for the batch being placed, if any, adds what it found to `outcome`, and applies
    /// what it left one by one. (Not beside the next batch's staging: those may be network
    /// downloads of any length, and requests beyond `max_concurrent`.)
    private mutating func finishPlacing(into outcome: inout RemoteApplier.Outcome) async {
        guard let task = placing else { return }
        placing = nil
        let placed = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        outcome.merge(placed.outcome)
        landing = placed.landing
        for entry in placed.others { await applier.applyOne(entry, device: device, stamp: stamp, into: &outcome) }
    }

    /// The entries with no local record and nothing at their path: those a batch downloads.
    private static func likelyFresh(_ entries: [WireEntry], applier: RemoteApplier) -> [WireEntry] {
        let local: [String: LocalRecord]
        do {
            local = try applier.index.records.locals(folder: applier.folder, paths: entries.map(\.path))
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
