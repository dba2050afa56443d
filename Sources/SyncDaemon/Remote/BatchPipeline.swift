import SyncCore

/// Batches of small downloads in page order, each one's chunks fetched while the batch
/// before it is planned, staged and placed: the network and the server work beside the
/// disk instead of before it. At most two batches' chunks are held (`batchMaxBytes` each).
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
        let fetcher = applier.chunkFetcher
        let chunks = Task { await fetcher.fetch(entries.flatMap(\.chunks)) }
        await flush(into: &outcome)
        waiting = (entries, chunks)
    }

    /// Applies the batch waiting, if any (before an entry that may not pass it, and at the end).
    mutating func flush(into outcome: inout RemoteApplier.Outcome) async {
        guard let (entries, chunks) = waiting else { return }
        waiting = nil
        let fetched = await chunks.value
        await BatchDownload(applier: applier).apply(entries, prefetched: fetched, device: device, stamp: stamp, into: &outcome)
    }
}
