import Foundation
import SyncClient

extension TransferQueue {
    /// A bulk batch between its claim and its outcome.
    struct BulkBatch: Sendable {
        var ops: [JournalOp]
        var staged: StagedPush
        var started: ContinuousClock.Instant
        /// When its ops were claimed: the express lane takes what was journaled after.
        var claimed: Date
    }

    /// Claims and pushes a batch; while more are ready, a chain of them, each next one read,
    /// hashed and uploaded while the one before commits (and committed only once that one's
    /// outcome is recorded: see `StagedPush`). Returns false when nothing was ready.
    func runOneBatch() async -> Bool {
        if !unrecorded.isEmpty {
            do {
                try index.journal.reschedule(
                    folder: folder, paths: Array(unrecorded), error: DaemonError(.notRecorded, "pushed again: its outcome could not be recorded"),
                    retryAt: Date())
                unrecorded.removeAll()
            } catch {
                return false
            }
        }
        // An express batch still on its way finishes first: its commit may be in the outbox.
        await expressDrained()
        guard await replayOutbox() else {
            // The server is away: try again after a backoff (new pushes wait behind it).
            replayRound += 1
            let delay = backoff.delay(afterAttempt: replayRound, jitter: Double.random(in: 0..<1))
            if await retryAlarm.sleep(seconds: delay) { replayRound = 0 }
            return !Task.isCancelled
        }
        if replayRound > 0 { retryAlarm.clear() }  // a retry asked while the replay ran is answered by it
        replayRound = 0
        mustReplayFirst = false
        // A short first batch: the chain's next one is staged while it commits, instead of
        // the first commit waiting for a whole batch to be read. (Moves in it are pushed
        // first, and the rest of the journal's moves in the next batches, in journal order.)
        guard var ops = claimBulk(limit: min(batchLimit, Self.firstBatchLimit)) else { return false }
        let started = ContinuousClock.now
        openExpressLane(since: Date())
        if ops.contains(where: { $0.moveFrom != nil }) {
            // Moves go up in one request whatever their number, a few index statements each:
            // a whole batch of them, not a first batch's (2,000 renames took 16 rounds of 0.12 s).
            if ops.count == Self.firstBatchLimit, batchLimit > ops.count {
                ops += claimMore(limit: batchLimit - ops.count)
            }
            let result = await MovePush(uploader: uploader).push(ops)
            closeExpressLane()
            await finish(result, ops: ops, started: started)
            return true
        }
        var current = BulkBatch(ops: ops, staged: await uploader.stage(ops), started: started, claimed: Date())
        while true {
            async let staging = stageNext()
            let result = await uploader.commit(current.staged, mayDelete: { count in await self.mayDelete(count) })
            // Closed while the outcome is recorded and its conflicts planned, as after any bulk
            // batch: the ops it puts back must not go up beside that planning.
            closeExpressLane()
            await finish(result, ops: current.ops, started: current.started)
            guard var next = await staging else { break }
            guard await mayCommitNext() else {
                // The server went away (a commit may be in the outbox, replayed first) or
                // sending stopped: the next batch goes back to the journal uncommitted.
                await uploader.setAside(Set(next.staged.paths), of: &next.staged)
                await finish(await uploader.commit(next.staged, mayDelete: { _ in true }), ops: next.ops, started: next.started)
                break
            }
            let stale = await uploader.setAsideStale(&next.staged)
            if !stale.isEmpty {
                opsSetAside += stale.count
                logger.debug("staged ops go round again: a commit changed what they were prepared against", metadata: [
                    "folder": "\(folder)", "count": "\(stale.count)",
                ])
            }
            openExpressLane(since: next.claimed)
            current = next
        }
        return true
    }

    /// Claims up to `limit` more ready ops into the batch being claimed (none: an empty list).
    private func claimMore(limit: Int) -> [JournalOp] {
        let ops: [JournalOp]
        do {
            ops = try index.journal.claim(folder: folder, limit: limit)
        } catch {
            logger.error("journal claim failed", metadata: ["error": "\(error)"])
            return []
        }
        running.formUnion(ops.map(\.path))
        return ops
    }

    /// Claims up to `limit` ready ops for the bulk lane; nil when none are ready.
    private func claimBulk(limit: Int) -> [JournalOp]? {
        let ops = claimMore(limit: limit)
        guard !ops.isEmpty else { return nil }
        batchesPushed += 1
        return ops
    }

    /// The batch after the one committing, staged; nil when none is ready, or when it holds
    /// moves (they are pushed in a round of their own, which orders them).
    private func stageNext() async -> BulkBatch? {
        guard !paused, !Task.isCancelled, let ops = claimBulk(limit: batchLimit) else { return nil }
        if ops.contains(where: { $0.moveFrom != nil }) {
            release(ops)
            return nil
        }
        batchesStagedAhead += 1
        let started = ContinuousClock.now, claimed = Date()
        return BulkBatch(ops: ops, staged: await uploader.stage(ops), started: started, claimed: claimed)
    }

    /// Puts claimed ops back, due now (or, when that fails, before the next batch).
    private func release(_ ops: [JournalOp]) {
        let paths = ops.map(\.path)
        running.subtract(paths)
        batchesPushed -= 1
        // Whoever asked while these were claimed is served by their next run.
        for path in paths { waiters.promoteNextRun(path) }
        do {
            try index.journal.release(folder: folder, paths: paths)
        } catch {
            logger.error("cannot put claimed ops back in the journal", metadata: ["folder": "\(folder)", "error": "\(error)"])
            unrecorded.formUnion(paths)
        }
    }

    /// Whether a staged batch may commit now that the one before it is recorded.
    private func mayCommitNext() async -> Bool {
        guard !paused, !Task.isCancelled, unrecorded.isEmpty, !mustReplayFirst, offlineError == nil else { return false }
        if let sendGate, await !sendGate() { return false }
        return true
    }

    /// Records a batch's outcome and does what follows it.
    private func finish(_ result: PushBatchResult, ops: [JournalOp], started: ContinuousClock.Instant) async {
        record(result, ops: ops)
        running.subtract(ops.map(\.path))
        if !result.conflicts.isEmpty, let conflictHandler {
            // Planned against the server's current version (conflict copy or adoption) before
            // the next batch, through the folder's one remote applier.
            await conflictHandler(result.conflicts)
        }
        do {
            if try index.journal.pendingCount(folder: folder) == 0 { try index.folders.setLastSynced(folder: folder, at: Date()) }
        } catch {
            logger.error("index status update failed", metadata: ["error": "\(error)"])
        }
        let committed = result.update.bases.count
        if committed > 0 {
            logger.info(
                "\(BatchSummary.sent(changes: committed, bytes: result.bytesSent, took: ContinuousClock.now - started))",
                metadata: ["folder": "\(folder)"])
        }
    }

    /// Sends the commits of the outbox again and records what the server did with them,
    /// before any new push is prepared against the index. False while one cannot be sent.
    func replayOutbox() async -> Bool {
        let round = OutboxRound(folder: folder, index: index, replayer: uploader.outboxReplayer, logger: logger)
        var failures = replayFailures
        let (sent, offline) = await round.run(failures: &failures, onConflicts: conflictHandler)
        replayFailures = failures
        if let offline { offlineError = offline }
        return sent
    }

    func record(_ result: PushBatchResult, ops: [JournalOp]) {
        var result = result
        // A retry asked while they ran: a failure's backoff starts from the first try again.
        var ops = ops
        if !triesStartOver.isEmpty {
            for i in ops.indices where triesStartOver.remove(ops[i].path) != nil { ops[i].attempts = 0 }
        }
        // An op the batch gave no fate (none should be left so) is looked at again shortly.
        for op in ops where result.fates[op.path] == nil {
            logger.error("a pushed path was left without an outcome; retrying it", metadata: ["path": "\(op.path)"])
            result.settle(op.path, .unstable)
        }
        let finished = result.finished
        traceOutcome(result)
        do {
            let again = try index.journal.finish(folder: folder, done: Array(finished.keys), update: IndexUpdateBox(result.update))
            changesCommitted += result.update.bases.count
            // Waiters of this run get its outcome; those who came during it wait for the rerun (`again`).
            for (path, outcome) in finished { waiters.resolve(path, with: outcome) }
            if !again.isEmpty { logger.debug("rerunning paths changed during push", metadata: ["count": "\(again.count)"]) }
            // (Also those whose records were left out: a download landed since they were prepared.)
            for path in again { logger.trace("looked at again after the push", metadata: ["path": "\(path)"]) }
            let record = try BatchRecord.writeUnfinished(result, ops: ops, folder: folder, index: index, backoff: backoff)
            for (path, error) in record.failed { waiters.resolve(path, with: .failed(error)) }
            for path in record.nextRun { waiters.promoteNextRun(path) }
            let held = result.paths { $0 == .held }
            if !held.isEmpty { logger.warning("delete wave waits for `syncctl approve-deletes`", metadata: ["count": "\(held.count)"]) }
            if let transient = record.transientError {
                mustReplayFirst = true
                offlineError = transient
            } else if !finished.isEmpty {
                offlineError = nil
            }
        } catch {
            // The index could not record the outcome (its disk full?): the ops go round again
            // in a few seconds (a push the server already has comes back as a conflict with
            // the same content, and is adopted); if even that cannot be written they stay
            // claimed until the next start. Whoever waits on them is told now (a waiter
            // already answered above is not: `resolve` empties its list).
            logger.error("recording push outcome failed", metadata: ["folder": "\(folder)", "error": "\(error)"])
            mustReplayFirst = true
            let paths = ops.map(\.path)
            let notRecorded = DaemonError(.notRecorded, "cannot record the push: \(error)", underlying: error)
            do {
                try index.journal.reschedule(folder: folder, paths: paths, error: notRecorded, retryAt: Date().addingTimeInterval(5))
            } catch {
                // Tried again before each next batch (their rows stay `running` until then).
                logger.error("cannot put the ops back in the journal", metadata: ["folder": "\(folder)", "error": "\(error)"])
                unrecorded.formUnion(paths)
            }
            for path in paths { waiters.resolve(path, with: .failed(notRecorded)) }
        }
    }

    /// Each path's fate and what the index records of the batch (trace level: a sync's story).
    private func traceOutcome(_ result: PushBatchResult) {
        guard logger.logLevel <= .trace else { return }
        for (path, fate) in result.fates { logger.trace("push fate", metadata: ["path": "\(path)", "fate": "\(fate)"]) }
        let update = result.update
        for base in update.bases {
            logger.trace(
                "push records base",
                metadata: [
                    "path": "\(base.path)", "rev": "\(base.rev)", "deleted": "\(base.deleted)",
                    "hash": "\(base.contentHash.prefix(12))",
                ])
        }
        for path in update.removedLocals { logger.trace("push removes local", metadata: ["path": "\(path)"]) }
        for move in update.moves { logger.trace("push records move", metadata: ["path": "\(move.to)", "from": "\(move.from)"]) }
    }
}
