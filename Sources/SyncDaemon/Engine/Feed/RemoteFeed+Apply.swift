import Foundation
import SyncClient
import SyncCore

extension RemoteFeed {
    /// Applies remote entries (from the feed, the retry list, or the current entries a
    /// push conflicted with), one application at a time per folder. Entries that fail are
    /// kept and retried with backoff (`remote_retry`); the folder is not idle meanwhile.
    /// Returns the error when the server could not be reached for some of them.
    @discardableResult
    func apply(_ entries: [WireEntry]) async -> RemoteError? {
        await withCheckedContinuation { applyTurns.request($0) }
        defer { applyTurns.leave() }
        return await applyInTurn(entries)
    }

    enum PageApplied { case done, paused, unreachable(RemoteError) }

    /// `apply` for the feed and the retries: nothing is applied once the folder is paused,
    /// checked inside the turn, so nothing starts after `quiesce` returned.
    func applyUnlessPaused(_ entries: [WireEntry]) async -> PageApplied {
        await withCheckedContinuation { applyTurns.request($0) }
        defer { applyTurns.leave() }
        if await queue.paused { return .paused }
        return await applyInTurn(entries).map { .unreachable($0) } ?? .done
    }

    /// Returns once no application is running (`syncctl pause`: what was being applied
    /// finishes, nothing new starts).
    func quiesce() async {
        await withCheckedContinuation { applyTurns.request($0) }
        applyTurns.leave()
    }

    private func applyInTurn(_ entries: [WireEntry]) async -> RemoteError? {
        // Entries seen already (the feed bringing back this device's own commits) are no
        // downloads: counted, they showed a folder just idle as syncing for the moment they
        // were looked at. (A restore is this device's commit too, but newer than its base.)
        let seen = applier.seenBases(of: entries)
        let downloads = entries.count { !RemoteApplier.wasSeen($0, in: seen) }
        pendingDownloads += downloads
        defer { pendingDownloads -= downloads }
        let device = await remote.deviceName ?? "device"
        let rules = ignore.rules
        let started = ContinuousClock.now
        let ownDevice = await remote.deviceId
        let outcome = await applier.apply(
            entries, seen: seen, device: device, ownDeviceId: ownDevice, skip: { rules.skips($0, isDirectory: $1) })
        logApplied(entries.filter { $0.device != ownDevice }, outcome: outcome, took: ContinuousClock.now - started)
        applier.restores.settle(applied: outcome.applied)
        // Directories whose event was taken as a download's echo but which were not recorded.
        let unrecorded = applier.echoes.takeUnrecorded()
        if !unrecorded.isEmpty { journal.add(unrecorded) }
        let retried = Set(outcome.failed.map(\.entry.path))
        for (path, error) in outcome.errors where !retried.contains(path) {
            logger.warning("remote change refused", metadata: ["path": "\(path)", "error": "\(error)"])
        }
        do {
            try index.retries.clear(folder: folder, applied: outcome.applied)
            try index.retries.hold(folder: folder, outcome.failed) { attempt in
                Self.retryBackoff.delay(afterAttempt: attempt, jitter: Double.random(in: 0..<1))
            }
            for (path, error) in outcome.errors where !retried.contains(path) {
                try index.errors.show(folder: folder, path: path, error: error, origin: .remote)
            }
            retries = try index.retries.count(folder: folder)
        } catch {
            // The cursor must not move past entries that are neither applied nor kept.
            logger.error("cannot keep remote entries for a retry", metadata: ["folder": "\(folder)", "error": "\(error)"])
            return RemoteError(kind: .transient, code: "local_index", message: "cannot record remote changes: \(error)")
        }
        if !outcome.pushes.isEmpty { journal.add(outcome.pushes) }
        return outcome.retryLater
    }

    /// One info line for a page (or retry) that changed something here (`entries` without
    /// the echoes of this device's own pushes).
    private func logApplied(_ entries: [WireEntry], outcome: RemoteApplier.Outcome, took: Duration) {
        let applied = Set(outcome.applied.map { "\($0.path)\u{0}\($0.rev)" })
        let changed = entries.filter { applied.contains("\($0.path)\u{0}\($0.rev)") }
        guard !changed.isEmpty else { return }
        let bytes = changed.reduce(Int64(0)) { $0 + ($1.deleted || $1.kind != .file ? 0 : $1.size) }
        logger.info(
            "\(BatchSummary.applied(changes: changed.count, bytes: bytes, took: took))", metadata: ["folder": "\(folder)"])
    }

    /// Applies kept remote entries whose retry is due; checks once a second. Partial
    /// downloads with no try for long, while one could come, are given up on the same beat.
    func retryPeriodically(rootOK: @Sendable () async -> Bool) async {
        while !Task.isCancelled {
            let paused = await queue.paused
            if feedError != nil || paused { applier.partials.touch() } else { applier.partials.expire(in: applier.materializer.folder) }
            do {
                retries = try index.retries.count(folder: folder)
                if retries > 0, !paused, await rootOK() {
                    let due = try index.retries.due(folder: folder)
                    if !due.isEmpty { _ = await applyUnlessPaused(due) }
                }
            } catch {
                logger.error("cannot read remote entries kept for a retry", metadata: ["folder": "\(folder)", "error": "\(error)"])
            }
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
        }
    }
}
