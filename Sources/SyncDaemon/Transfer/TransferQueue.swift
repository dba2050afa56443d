import Foundation
import Logging
import SyncClient
import SyncCore

/// Runs a folder's journal: claims ready ops in batches, pushes them, records
/// the outcome, and tells every waiter exactly once. Requests for a path that
/// is queued join it; requests for a running path wait for its next run.
public actor TransferQueue {
    let folder: String
    let index: IndexStore
    let uploader: Uploader
    let logger: Logger
    let backoff = Backoff()
    /// Ops per bulk batch.
    let batchLimit: Int
    /// Ops in the first batch of a chain (see `runOneBatch`).
    static let firstBatchLimit = 250
    /// Local deletes of the last minute, judged as one wave.
    var deleteWave: DeleteWave

    var waiters = PushWaiters()
    var running: Set<String> = []
    /// Running ops a `syncctl retry` came for: if they fail, their tries start over (their
    /// backoff was read at their claim).
    var triesStartOver: Set<String> = []
    /// Ops whose outcome could not be recorded nor their rows put back (index disk full):
    /// put back before the next batch.
    var unrecorded: Set<String> = []
    /// Rounds in a row in which the outbox could not be sent, and, per commit, how many
    /// times the server answered its resending with an error.
    var replayRound = 0
    var replayFailures: [String: Int] = [:]
    private var wake: AsyncStream<Void>.Continuation?
    /// The express lane (see `TransferQueue+Express`): open while a bulk batch is in flight,
    /// for changes journaled since this moment.
    var expressSince: Date?
    /// Express batches in flight (one lane of edits, one of new paths: `ExpressLane.Lane`).
    var expressInFlight = 0
    var expressDrainWaiters: [CheckedContinuation<Void, Never>] = []
    /// Candidates the express lane turned down during this bulk batch (too big, a delete).
    var expressRefused: Set<String> = []
    private var expressWakes: [AsyncStream<Void>.Continuation] = []
    public internal(set) var expressBatchesPushed = 0
    private(set) var paused = false
    /// The last transient error, while the server is unreachable.
    var offlineError: RemoteError?
    /// Cuts the outbox replay's backoff short (`syncctl retry`).
    let retryAlarm = Alarm()
    /// A batch ended with a transient failure or an outcome that could not be recorded: a
    /// commit may wait in the outbox, replayed before any new commit (cleared by that replay).
    var mustReplayFirst = false
    /// Gets the server's current entries when a push found them changed.
    var conflictHandler: (@Sendable ([WireEntry]) async -> Void)?
    var sendGate: (@Sendable () async -> Bool)?
    /// Pushes started, for tests and status.
    public internal(set) var batchesPushed = 0
    public internal(set) var changesCommitted = 0
    /// Bulk batches staged while the one before committed, and ops of theirs sent back
    /// because that commit changed what they were prepared against (for tests and the log).
    public internal(set) var batchesStagedAhead = 0
    public internal(set) var opsSetAside = 0

    init(
        folder: String, index: IndexStore, uploader: Uploader, deleteGuard: DeleteGuard, batchLimit: Int = 2_000,
        logger: Logger
    ) {
        self.folder = folder
        self.batchLimit = batchLimit
        self.deleteWave = DeleteWave(deleteGuard: deleteGuard)
        self.index = index
        self.uploader = uploader
        self.logger = logger
    }

    /// Journals work for `paths` (durably) and wakes the worker. Returns once journaled.
    /// `delay` lets a burst (e.g. the deletes of one `rm -r`) gather into one batch.
    /// `moves` names the old path of paths that got here by a move (new → old).
    public func enqueue(_ paths: [String], moves: [String: String] = [:], delay: TimeInterval = 0) throws {
        guard !paths.isEmpty else { return }
        try index.journal.enqueue(folder: folder, paths: paths, moves: moves, delay: delay)
        wake?.yield()
        for wake in expressWakes { wake.yield() }
    }

    /// Journals several requests in one transaction.
    public func enqueue(_ requests: [JournalRequest]) throws {
        guard requests.contains(where: { !$0.paths.isEmpty }) else { return }
        try index.journal.enqueue(folder: folder, requests: requests)
        wake?.yield()
        for wake in expressWakes { wake.yield() }
    }

    /// Journals a push of `path` and waits for its outcome.
    public func push(_ path: String) async throws -> PushOutcome {
        let runningNow = try index.journal.enqueue(folder: folder, paths: [path])
        return await withCheckedContinuation { continuation in
            waiters.add(continuation, for: path, afterCurrentRun: runningNow.contains(path) || running.contains(path))
            wake?.yield()
            for wake in expressWakes { wake.yield() }
        }
    }

    func onConflict(_ handler: @escaping @Sendable ([WireEntry]) async -> Void) {
        conflictHandler = handler
    }

    /// Asked before every batch; false holds all sending (checked again each second).
    func setSendGate(_ gate: @escaping @Sendable () async -> Bool) {
        sendGate = gate
    }

    public func setPaused(_ value: Bool) {
        paused = value
        wake?.yield()
    }

    public var isBusy: Bool { !running.isEmpty }

    /// The worker loop; returns when the task is cancelled (graceful shutdown).
    /// Work not finished stays in the journal.
    public func run() async {
        let lanes = ExpressLane.Lane.allCases.map { lane in
            (lane, AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1)))
        }
        expressWakes = lanes.map(\.1.continuation)
        await withTaskGroup(of: Void.self) { group in
            for (lane, (signals, _)) in lanes { group.addTask { await self.runExpress(lane, signals) } }
            await runBulk()
            for wake in expressWakes { wake.finish() }
            group.cancelAll()
        }
    }

    /// Opens the express lane for changes journaled since `since` (when the bulk batch now
    /// in flight was claimed).
    func openExpressLane(since: Date) {
        expressSince = since
        expressRefused = []
        for wake in expressWakes { wake.yield() }
    }

    func closeExpressLane() { expressSince = nil }

    /// The bulk lane: chains of batches of up to `batchLimit` ops (`runOneBatch`), one after the other.
    private func runBulk() async {
        let (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        wake = continuation
        defer { continuation.finish() }
        var iterator = signals.makeAsyncIterator()
        while !Task.isCancelled {
            if !paused, let sendGate, await !sendGate() {
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
                continue
            }
            if !paused, await runOneBatch() { continue }
            // Nothing ready: sleep until woken or until the next op in backoff is due.
            let due: Date?
            do { due = try index.journal.nextDue(folder: folder) } catch {
                logger.error("journal read failed", metadata: ["error": "\(error)"])
                due = Date().addingTimeInterval(1)
            }
            let timer = due.map { date in
                Task { [weak self] in
                    do { try await Task.sleep(for: .seconds(max(0.001, date.timeIntervalSinceNow))) } catch { return }
                    await self?.poke()
                }
            }
            _ = await iterator.next()
            timer?.cancel()
        }
    }

    func poke() { wake?.yield() }

    /// The change feed reached the server after failing to: ops waiting out a backoff
    /// because it could not be reached are due now (their tries go on counting), and so is
    /// an outbox replay waiting out its own.
    func serverIsBack() {
        do {
            let due = try index.journal.dueNow(folder: folder, failedWith: .serverUnreachable)
            if due > 0 { logger.info("pushing what waited for the server", metadata: ["folder": "\(folder)", "paths": "\(due)"]) }
        } catch {
            logger.error("cannot make the ops that waited for the server due", metadata: ["folder": "\(folder)", "error": "\(error)"])
        }
        retryNow()
    }

    /// `syncctl retry` (the journal's ops already made due): an outbox replay waiting out
    /// its backoff tries now, and the bulk lane looks at the journal again. The ops running
    /// now (at or below `under`, when given) start their tries over if they fail.
    func retryNow(under: String? = nil) {
        triesStartOver.formUnion(running.filter { path in under.map { RelativePath.isWithin(path, $0) } ?? true })
        if replayRound > 0 { retryAlarm.ring() }
        wake?.yield()
    }

    /// The delete-wave guard for local deletes.
    func mayDelete(_ count: Int) -> Bool {
        let index = self.index, folder = self.folder, logger = self.logger
        return deleteWave.admit(count, now: Date()) {
            do { return try index.base.liveCount(folder: folder) } catch {
                logger.error("cannot count the folder's entries; deletes wait", metadata: ["error": "\(error)"])
                return nil
            }
        }
    }

    /// `syncctl approve-deletes`: held deletes go ahead (and the rest of this wave).
    public func approveDeletes() throws -> Int {
        deleteWave.approve(now: Date())
        let released = try index.journal.releaseHeld(folder: folder)
        wake?.yield()
        return released
    }
}
