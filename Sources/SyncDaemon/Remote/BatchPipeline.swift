import SyncCore

/// Batches of small downloads in page order, each one's chunks fetched while the batch
/// before it is planned and staged, and each one placed while the batch after it is staged:
/// the network, the server, the staging (mostly the kernel creating files) and the placing
/// (mostly waiting for the disk: a `syncfs`, one index commit, the renames) work side by
/// side instead of in turn. Placing is two steps, `record` (the `syncfs` and the index
/// commit) and `rename`; batches are recorded one at a time, in page order, and a batch is
/// recorded while the renames of the one before it are made. Only the chunks of files that
/// will likely download into an empty place are fetched ahead (no local record, nothing at
/// the path): the rest are planned first, as before. At most two batches' chunks are held
/// (`batchMaxBytes` each) and three batches staged or placed, and the fetch ahead has half of
/// `max_concurrent` (the batch being staged may fetch too). What a batch placed is recorded
/// as landed by the transaction of the batch after the next (the first whose `syncfs` comes
/// after all of its renames), or at the end (`BatchDownload.Landing`).
struct BatchPipeline {
    typealias Placed = (outcome: RemoteApplier.Outcome, others: [WireEntry], landing: BatchDownload.Landing)

    /// A batch being placed: its record, then its renames (which carry the record's outcome).
    private struct Placing {
        let recorded: Task<(RemoteApplier.Outcome, BatchDownload.Recorded), Never>
        let renamed: Task<Placed, Never>
    }

    let applier: RemoteApplier
    let device: String
    let stamp: String
    /// The next batch, its chunks on their way.
    private var waiting: (entries: [WireEntry], chunks: Task<ChunkFetcher.Fetched, Never>)?
    /// The batch placed last; what it finds is merged when it is done, and what it leaves
    /// is applied one by one then.
    private var placing: Placing?
    /// The batch before it, whose renames may still be under way.
    private var renaming: Task<Placed, Never>?
    /// What batches placed, renamed, not yet recorded as landed.
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
    /// last ones recorded as landed too.
    mutating func flush(into outcome: inout RemoteApplier.Outcome) async {
        await stageWaiting(into: &outcome)
        await finishRenaming(into: &outcome)
        if let last = placing {
            placing = nil
            renaming = last.renamed
            await finishRenaming(into: &outcome)
        }
        BatchDownload(applier: applier).record(landing, into: &outcome)
        landing = BatchDownload.Landing()
    }

    /// Stages the batch waiting, if any, while the one before it is placed; then places it
    /// once that one is recorded and the one before that is renamed.
    private mutating func stageWaiting(into outcome: inout RemoteApplier.Outcome) async {
        guard let (entries, chunks) = waiting else { return }
        waiting = nil
        // A stop (or the folder's removal) cancels the fetch ahead too.
        let fetched = await withTaskCancellationHandler { await chunks.value } onCancel: { chunks.cancel() }
        let download = BatchDownload(applier: applier)
        let staged = await download.stage(entries, prefetched: fetched)
        // Recorded one at a time, in page order; and only after the renames of what the
        // transaction records as landed (so its `syncfs` makes them durable).
        if let before = placing {
            placing = nil
            _ = await before.recorded.value
            await finishRenaming(into: &outcome)
            renaming = before.renamed
        }
        let previous = landing
        landing = BatchDownload.Landing()
        let recording = Task {
            var outcome = RemoteApplier.Outcome()
            let batch = download.record(staged, after: previous, into: &outcome)
            return (outcome, batch)
        }
        let renamed = Task { () -> Placed in
            let recorded = await recording.value
            var outcome = recorded.0
            let (others, landing) = await download.rename(recorded.1, into: &outcome)
            return (outcome, others, landing)
        }
        placing = Placing(recorded: recording, renamed: renamed)
    }

    /// Waits for the renames of the batch before the one placed last, if any, adds what it
    /// found to `outcome`, and applies what it left one by one. (Not beside the next batch's
    /// staging: those may be network downloads of any length, and requests beyond
    /// `max_concurrent`.)
    private mutating func finishRenaming(into outcome: inout RemoteApplier.Outcome) async {
        guard let task = renaming else { return }
        renaming = nil
        let placed = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        outcome.merge(placed.outcome)
        landing = landing.adding(placed.landing)
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
