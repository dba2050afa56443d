import Foundation

/// The express lane (issue 9 point 6): while the bulk lane pushes a batch, small changes
/// journaled after that batch was claimed are pushed beside it, in batches of their own.
///
/// The lanes never hold the same path (a claim takes only `pending` rows), and an
/// express batch only runs while a bulk batch is in flight: the bulk lane waits for it to
/// finish before its next round, so the commit outbox is never replayed while one of its
/// commits is still on its way.
extension TransferQueue {
    /// Runs `lane`'s batches whenever woken while a bulk batch is in flight; returns when cancelled.
    func runExpress(_ lane: ExpressLane.Lane, _ signals: AsyncStream<Void>) async {
        for await _ in signals {
            while !Task.isCancelled, !paused, let since = expressSince {
                guard await runOneExpressBatch(lane, since: since) else { break }
            }
        }
    }

    /// Returns once no express batch is in flight.
    func expressDrained() async {
        guard expressInFlight > 0 else { return }
        await withCheckedContinuation { expressDrainWaiters.append($0) }
    }

    /// Claims and pushes one batch of `lane`; false when nothing qualified.
    private func runOneExpressBatch(_ lane: ExpressLane.Lane, since: Date) async -> Bool {
        var candidates: [(path: String, synced: Bool)]
        do {
            candidates = try index.journal.expressCandidates(
                folder: folder, since: since, limit: ExpressLane.candidateLimit, synced: lane == .edits)
            if lane == .newPaths {
                let parents = Set(candidates.map { ExpressLane.parentPath($0.path) }).filter { !$0.isEmpty }
                let bases = try index.records.bases(folder: folder, paths: parents.sorted())
                candidates = ExpressLane.placeable(candidates, parents: bases, running: running)
            }
        } catch {
            logger.error("journal read failed", metadata: ["folder": "\(folder)", "error": "\(error)"])
            return false
        }
        let root = uploader.preparer.folder
        let chosen = ExpressLane.choose(candidates, lane: lane, refused: &expressRefused) { root.lstat($0) }
        guard !chosen.isEmpty else { return false }
        let ops: [JournalOp]
        do { ops = try index.journal.claim(folder: folder, paths: chosen) } catch {
            logger.error("journal claim failed", metadata: ["folder": "\(folder)", "error": "\(error)"])
            return false
        }
        guard !ops.isEmpty else { return false }
        expressInFlight += 1
        defer {
            expressInFlight -= 1
            if expressInFlight == 0 {
                let waiting = expressDrainWaiters
                expressDrainWaiters = []
                for waiter in waiting { waiter.resume() }
            }
        }
        running.formUnion(ops.map(\.path))
        expressBatchesPushed += 1
        let started = ContinuousClock.now
        let result = await uploader.push(ops, mayDelete: { count in await self.mayDelete(count) })
        record(result, ops: ops)
        running.subtract(ops.map(\.path))
        if !result.conflicts.isEmpty, let conflictHandler { await conflictHandler(result.conflicts) }
        logger.debug(
            "pushed express batch",
            metadata: [
                "folder": "\(folder)", "lane": "\(lane)", "ops": "\(ops.count)", "committed": "\(result.update.bases.count)",
                "took": "\(ContinuousClock.now - started)",
            ])
        return true
    }
}
