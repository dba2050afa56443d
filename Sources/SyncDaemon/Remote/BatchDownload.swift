import Foundation
import SyncClient
import SyncCore

/// Small new files of a feed page arrive together: their chunks come in a few batched
/// requests, they are staged, made durable with one `syncfs` (a file system), recorded in one
/// transaction and renamed into place; they are recorded as landed once a later barrier
/// made the renames durable too: the `syncfs` of a later batch (the first recorded once they
/// are all renamed), whose transaction records them, or one of their own at the end (`Landing`). One file at a time paid a request, an fsync and
/// three index commits each (decision 0010).
struct BatchDownload: Sendable {
    let applier: RemoteApplier
    typealias Outcome = RemoteApplier.Outcome

    var folder: String { applier.folder }
    var index: IndexStore { applier.index }
    var materializer: Materializer { applier.materializer }
    var assembler: FileAssembler { applier.assembler }
    var progress: TransferProgress { applier.progress }
    var echoes: DownloadEchoes { applier.echoes }

    /// A file of at most this size may be downloaded in a batch.
    static let batchFileLimit: Int64 = 1 << 20
    /// A batch holds at most this many files (one syncfs and one index commit for the lot, which
    /// records an earlier batch as landed too; 512 was 5 % faster than 256 on a fresh file
    /// system, session 38; 2048 was slower on a file system without a journal that had just
    /// deleted many files: see docs/benchmarks.md, session 13)…
    static let batchMaxFiles = 512
    /// …at most this many bytes (they are held in memory until staged)…
    static let batchMaxBytes: Int64 = 32 << 20
    /// …and files in at most this many directories (each held open until its files are placed).
    static let batchMaxDirectories = 256

    /// Whether `entry` may join a batch: a live regular file of at most `batchFileLimit`
    /// that no move brings (a move is a rename, not a download).
    static func batchable(_ entry: WireEntry, moves: [String: String]) -> Bool {
        !entry.deleted && entry.kind == .file && entry.size <= batchFileLimit && moves[entry.path] == nil
    }

    /// A staged file with the records it was planned against.
    typealias Placement = (file: StagedFile, base: BaseRecord?, local: LocalRecord?)

    /// A group of batchable entries planned, fetched and staged (`stage`), waiting to be
    /// recorded (`record`) and renamed into place (`rename`). A pipeline places one group
    /// while it stages the next.
    struct Staged: Sendable {
        fileprivate var files: [Placement] = []
        /// The paths taken the batch way, shown in progress until placed.
        fileprivate var fresh: [String] = []
        /// Entries for the one-by-one way, which plans each again and reports what goes wrong.
        fileprivate var others: [WireEntry] = []
        /// The server went away while chunks were fetched: the page is applied again later.
        fileprivate var retryLater: RemoteError?
    }

    /// Files a batch renamed into place whose landing is not recorded yet: their intents stay
    /// until a barrier made the renames durable, and the records that say they landed (their
    /// stat since the rename, the intents dropped) are written after it. A kill -9 or a power
    /// cut before that leaves intents, and the next start finds the files landed, or puts the
    /// records back where the rename was lost. A later batch's `record` writes them in its
    /// transaction, after its `syncfs` (`BatchPipeline` says which); the last ones',
    /// `record(_:into:)`.
    struct Landing: Sendable {
        fileprivate var files: [(entry: WireEntry, stat: FileStat, directory: DirectoryHandle)] = []

        var isEmpty: Bool { files.isEmpty }
        fileprivate var directories: [DirectoryHandle] { files.map(\.directory) }

        /// The files of both, to be recorded as landed together.
        func adding(_ other: Landing) -> Landing { Landing(files: files + other.files) }

        /// The records that say these files landed (their stat since the rename).
        fileprivate var landed: [LandedDownload] {
            files.map { entry, stat, _ in LandedDownload(local: entry.localRecord(stat: stat), base: entry.baseRecord) }
        }
    }

    /// A staged batch made durable and recorded (`record`), its renames not made yet (`rename`).
    struct Recorded: Sendable {
        /// Those whose records were written (the rest were planned again: `others`).
        fileprivate var files: [Placement] = []
        fileprivate var fresh: [String] = []
        fileprivate var others: [WireEntry] = []
    }

    /// The first half of applying a group of batchable entries. Those that plan as a download
    /// into an empty place go the batch way: fetched and staged beside their targets. Every
    /// other one, and any the batch could not stage (a chunk the server lacks, a write that
    /// failed), is left for the one-by-one way. Nothing is recorded or placed yet.
    /// `prefetched`: chunks fetched for the group beforehand (`BatchPipeline`); what it
    /// lacks is fetched now.
    func stage(_ group: [WireEntry], prefetched: ChunkFetcher.Fetched = .init()) async -> Staged {
        var staged = Staged()
        // Each directory of the batch is walked from the root once, for planning and staging.
        var open = OpenDirectories()
        let fresh = planFresh(group, reusing: &open, others: &staged.others)
        if !fresh.isEmpty { await download(fresh, prefetched: prefetched, reusing: &open, into: &staged) }
        return staged
    }

    /// The second half, first part: makes the staged files durable and records them (each only
    /// over the base it was planned against); records what an earlier batch placed as landed
    /// (`previous`) in the same transaction, after the same `syncfs`. Nothing is renamed yet
    /// (`rename`), so the next batch may be recorded while this one's renames are made.
    func record(_ staged: Staged, after previous: Landing, into outcome: inout Outcome) -> Recorded {
        var batch = Recorded(fresh: staged.fresh, others: staged.others)
        if let error = staged.retryLater { outcome.retryLater = error }
        if staged.files.isEmpty {
            record(previous, into: &outcome)
        } else {
            batch.files = recordFiles(staged.files, after: previous, others: &batch.others, into: &outcome)
            applier.logger.debug("recorded a batch of small downloads", metadata: ["files": "\(batch.files.count)"])
        }
        return batch
    }

    /// The second half, second part: renames a recorded batch's files into place. Returns the
    /// entries left for the one-by-one way (`RemoteApplier.applyOne`, in page order): those
    /// the batch did not stage, and those it could not place (their place taken meanwhile, a
    /// newer revision recorded meanwhile, their directory moved meanwhile); and what this
    /// batch placed, to be recorded as landed by a later batch (after its `syncfs`).
    func rename(_ batch: Recorded, into outcome: inout Outcome) async -> (others: [WireEntry], landing: Landing) {
        var others = batch.others
        let landing = batch.files.isEmpty ? Landing() : renameFiles(batch.files, others: &others, into: &outcome)
        if !batch.fresh.isEmpty { await progress.end(paths: batch.fresh) }
        return (others, landing)
    }

    /// Records `landing` as landed once its renames are durable (`syncRenames`): the last
    /// batch's, which no next batch records.
    func record(_ landing: Landing, into outcome: inout Outcome) {
        guard !landing.isEmpty else { return }
        CrashPoint.reached(.beforeLanded, paths: landing.files.map(\.entry.path))
        do {
            try FileAssembler.syncRenames(in: landing.directories)
            try index.records.record(folder: folder, landed: landing.landed)
        } catch {
            landed(landing, failedWith: error, into: &outcome)
            return
        }
        landed(landing, into: &outcome)
    }

    /// Notes the files of `landing`, recorded as landed.
    private func landed(_ landing: Landing, into outcome: inout Outcome) {
        guard !landing.isEmpty else { return }
        for (entry, _, _) in landing.files { outcome.applied.append((entry.path, entry.rev)) }
        applier.metrics.downloaded(files: landing.files.count, bytes: 0)
        for (entry, _, _) in landing.files { applier.progress.tally.downloaded(path: entry.path, bytes: entry.size) }
        applier.logger.debug("downloaded a batch of small files", metadata: ["files": "\(landing.files.count)"])
    }

    /// Notes the files of `landing` as not recorded as landed: in place and recorded, only
    /// their intents left, which the next start resolves (the files landed).
    private func landed(_ landing: Landing, failedWith error: any Error, into outcome: inout Outcome) {
        for (entry, _, _) in landing.files {
            let problem = RemoteApplier.problem(error, path: entry.path)
            outcome.errors.append((entry.path, problem))
            outcome.failed.append((entry, problem))
        }
    }

    /// The entries of `group` that plan as a download into an empty place, with the base
    /// each was planned against; the rest are appended to `others`.
    private func planFresh(_ group: [WireEntry], reusing open: inout OpenDirectories, others: inout [WireEntry])
        -> [(entry: WireEntry, base: BaseRecord?, local: LocalRecord?)]
    {
        let records: (local: [String: LocalRecord], base: [String: BaseRecord])
        do {
            records = try index.records.read(folder: folder, paths: group.map(\.path))
        } catch {
            others.append(contentsOf: group)
            return []
        }
        var fresh: [(entry: WireEntry, base: BaseRecord?, local: LocalRecord?)] = []
        for entry in group {
            let base = records.base[entry.path], local = records.local[entry.path]
            do {
                let (view, stat) = try materializer.inspect(entry.path, record: local, reusing: &open)
                if stat == nil, Planner.plan(local: view, base: base, remote: entry) == .download {
                    fresh.append((entry, base, local))
                    continue
                }
            } catch {
                // Looked at again one by one, which reports it.
            }
            others.append(entry)
        }
        return fresh
    }

    private func download(
        _ fresh: [(entry: WireEntry, base: BaseRecord?, local: LocalRecord?)], prefetched: ChunkFetcher.Fetched,
        reusing open: inout OpenDirectories, into staged: inout Staged
    ) async {
        var fetched = ChunkFetcher.Fetched()
        var missing: [String] = []
        for hash in fresh.flatMap(\.entry.chunks) {
            if let bytes = prefetched.chunks[hash] { fetched.chunks[hash] = bytes } else { missing.append(hash) }
        }
        if let error = prefetched.error, error.kind == .transient {
            // The server was away when they were fetched ahead: the page is applied again later.
            fetched.error = error
        } else if !missing.isEmpty {
            // Not fetched ahead (planned first), or the server lacked them then: asked now.
            let more = await applier.chunkFetcher.fetch(missing)
            fetched.chunks.merge(more.chunks) { first, _ in first }
            fetched.error = more.error
        }
        applier.metrics.downloaded(files: 0, bytes: fetched.chunks.values.reduce(Int64(0)) { $0 + Int64($1.count) })
        staged.fresh = fresh.map(\.entry.path)
        await progress.begin(fresh.map { ($0.entry.path, $0.entry.size) }, direction: "download")
        var complete: [(entry: WireEntry, base: BaseRecord?, local: LocalRecord?)] = []
        for item in fresh {
            guard item.entry.chunks.allSatisfy({ fetched.chunks[$0] != nil }) else {
                // The server is away: the whole page is applied again later. Else it lacks a
                // chunk (or is too old to batch): one by one fetches and says which.
                if let error = fetched.error, error.kind == .transient {
                    staged.retryLater = error
                } else {
                    applier.logger.debug(
                        "a batch download's chunks did not all come; it goes one by one",
                        metadata: ["path": "\(item.entry.path)", "error": "\(fetched.error.map { "\($0)" } ?? "not sent")"])
                    staged.others.append(item.entry)
                }
                continue
            }
            complete.append(item)
        }
        for (item, file) in zip(complete, await stageAll(complete.map(\.entry), chunks: fetched.chunks, reusing: &open)) {
            // One that could not be staged is looked at again one by one, which reports it.
            guard let file else {
                staged.others.append(item.entry)
                continue
            }
            staged.files.append((file, item.base, item.local))
        }
        if !staged.files.isEmpty { await progress.complete(staged.files.map(\.file.entry.path)) }
    }

    /// Stages `entries` (nil: one that could not be), split by directory over up to
    /// `stagingWidth` threads: creating and writing many small files is mostly the kernel's
    /// work, which then runs on every core. A directory's files stay on one thread, in order.
    private func stageAll(_ entries: [WireEntry], chunks: [String: [UInt8]], reusing open: inout OpenDirectories) async
        -> [StagedFile?]
    {
        let shards = Self.shards(entries.map(\.path), width: Self.stagingWidth, minimum: Self.filesPerStagingThread)
        guard shards.count > 1 else {
            return entries.map { entry in
                do { return try assembler.stage(entry, chunks: chunks, reusing: &open) } catch { return nil }
            }
        }
        // Each thread resolves directories through its own copy of those already open.
        let stager = assembler, shared = open
        var staged = [StagedFile?](repeating: nil, count: entries.count)
        await withTaskGroup(of: [(Int, StagedFile?)].self) { group in
            for shard in shards {
                group.addTask {
                    var open = shared
                    return shard.map { i in
                        do { return (i, try stager.stage(entries[i], chunks: chunks, reusing: &open)) } catch { return (i, nil) }
                    }
                }
            }
            for await part in group { for (i, file) in part { staged[i] = file } }
        }
        return staged
    }

    /// Threads that stage one batch, and the fewest files worth a thread of their own.
    static let stagingWidth = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
    static let filesPerStagingThread = 32

    /// Indices of `paths` in up to `width` groups, each directory's in one group, in order;
    /// one group when there are fewer than `minimum` paths a group. Pure.
    static func shards(_ paths: [String], width: Int, minimum: Int) -> [[Int]] {
        let width = max(1, min(width, paths.count / max(1, minimum)))
        guard width > 1 else { return paths.isEmpty ? [] : [Array(paths.indices)] }
        var shards = [[Int]](repeating: [], count: width)
        var directoryShard: [Substring: Int] = [:]
        for (i, path) in paths.enumerated() {
            let directory = path.lastIndex(of: "/").map { path[..<$0] } ?? ""
            let shard = directoryShard[directory] ?? {
                // A new directory goes to the group with the fewest files so far.
                let smallest = shards.indices.min { shards[$0].count < shards[$1].count } ?? 0
                directoryShard[directory] = smallest
                return smallest
            }()
            shards[shard].append(i)
        }
        return shards.filter { !$0.isEmpty }
    }

    /// Makes the staged files (and `previous`'s renames) durable and records them (each only
    /// over the base it was planned against, and `previous` as landed). Returns the files
    /// recorded; the others are discarded and left for the one-by-one way.
    private func recordFiles(
        _ staged: [Placement], after previous: Landing, others: inout [WireEntry],
        into outcome: inout Outcome
    ) -> [Placement] {
        var updates: [GuardedUpdate] = []
        for (file, base, local) in staged {
            var update = IndexUpdate()
            update.bases.append(file.entry.baseRecord)
            update.locals.append(file.entry.localRecord(stat: file.stat))
            update.intents = [
                DownloadIntent(path: file.entry.path, stagedInode: file.stat.inode, previousLocal: local, previousBase: base)
            ]
            updates.append(GuardedUpdate(path: file.entry.path, update: update, ifBase: base))
        }
        let recorded: Set<String>
        CrashPoint.reached(.beforeLanded, paths: previous.files.map(\.entry.path))
        do {
            try FileAssembler.syncFileSystems(holding: staged.map(\.file.staging.directory) + previous.directories)
            // (Only this batch's paths: those of the landing recorded with it are other paths.)
            recorded = try index.records.apply(folder: folder, guarded: updates, landed: previous.landed)
                .subtracting(previous.files.map(\.entry.path))
        } catch {
            for (file, _, _) in staged { assembler.discard(file) }
            others.append(contentsOf: staged.map(\.file.entry))
            landed(previous, failedWith: error, into: &outcome)
            return []
        }
        landed(previous, into: &outcome)
        var kept: [Placement] = []
        for placement in staged {
            guard recorded.contains(placement.file.entry.path) else {
                applier.logger.trace("batch download not recorded: planned again", metadata: ["path": "\(placement.file.entry.path)"])
                // A push recorded a newer revision of the path meanwhile: plan it again.
                assembler.discard(placement.file)
                others.append(placement.file.entry)
                continue
            }
            kept.append(placement)
        }
        return kept
    }

    /// Renames recorded files into place. Returns those placed, not yet recorded as landed.
    private func renameFiles(_ staged: [Placement], others: inout [WireEntry], into outcome: inout Outcome) -> Landing {
        CrashPoint.reached(.beforeRename, paths: staged.map(\.file.entry.path))
        // While a move of this device is queued, the events of what lands are journaled as
        // usual: the move re-keys the records below its source when it commits, and a file
        // this batch re-created there must then be looked at again (else the index forgets it).
        let dropEchoes: Bool
        do { dropEchoes = try !index.journal.hasPendingMove(folder: folder) } catch { dropEchoes = false }
        var placed = Landing()
        // Each directory is checked once, just before the first rename into it.
        var inPlace: [ObjectIdentifier: Bool] = [:]
        for (file, base, local) in staged {
            do {
                let directory = ObjectIdentifier(file.target.directory)
                let there = inPlace[directory] ?? assembler.isInPlace(file)
                inPlace[directory] = there
                guard there else { throw DaemonError(.changedMeanwhile, "its directory moved meanwhile", path: file.entry.path) }
                if dropEchoes { echoes.expect(file.entry.path, stat: file.stat) }
                placed.files.append((file.entry, try assembler.place(file), file.target.directory))
                applier.logger.trace(
                    "batch download placed",
                    metadata: ["path": "\(file.entry.path)", "rev": "\(file.entry.rev)", "echo": "\(dropEchoes)"])
            } catch {
                echoes.forget(file.entry.path)
                assembler.discard(file)
                do {
                    try index.records.restore(folder: folder, path: file.entry.path, local: local, base: base, onlyOver: file.entry.baseRecord)
                    others.append(file.entry)
                } catch {
                    let problem = RemoteApplier.problem(error, path: file.entry.path)
                    outcome.errors.append((file.entry.path, problem))
                    outcome.failed.append((file.entry, problem))
                }
            }
        }
        return placed
    }
}
