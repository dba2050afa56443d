import Foundation
import SyncClient
import SyncCore

extension FolderEngine {
    /// Entries per feed page. Large, so that a directory move's tombstones and
    /// new entries usually arrive in one page and are applied as renames.
    static let feedPageLimit = 10_000

    /// Follows the server's change feed (long-poll) and applies what it brings.
    /// The cursor is stored only after the page's changes are applied or journaled.
    func followRemote() async {
        var failures = 0
        var ownMoveWaitStarted: ContinuousClock.Instant?
        while !Task.isCancelled {
            let paused = await queue.paused
            let rootOK = await checkRoot()
            if paused || !rootOK {
                do { try await Task.sleep(for: .milliseconds(500)) } catch { return }
                continue
            }
            do {
                let cursor = try index.folders.state(folder: id).remoteCursor
                let page = try await remote.changes(folder: id, since: cursor, waitSeconds: 25, limit: Self.feedPageLimit)
                feedError = nil
                failures = 0
                if !page.entries.isEmpty {
                    // This device's own move, committed but not yet recorded (its reply late or
                    // lost and being retried): let the mover record it first, then read the page
                    // again. Applied now, its entries would retire the bases the mover needs.
                    // At most 15 s: a move row left `running` must not hold the feed for good.
                    let me = await remote.deviceId
                    if page.entries.contains(where: { $0.device == me && ($0.movedFrom != nil || $0.movedTo != nil) }),
                        try index.journal.hasMoveInFlight(folder: id)
                    {
                        let started = ownMoveWaitStarted ?? ContinuousClock.now
                        ownMoveWaitStarted = started
                        if ContinuousClock.now - started < .seconds(15) {
                            do { try await Task.sleep(for: .milliseconds(250)) } catch { return }
                            continue
                        }
                        logger.warning("own move still being recorded after 15 s; applying the feed", metadata: ["folder": "\(id)"])
                    }
                    ownMoveWaitStarted = nil
                    guard try remoteDeletesAllowed(page.entries) else {
                        // Held until `syncctl approve-deletes`; the cursor stays put.
                        do { try await Task.sleep(for: .milliseconds(500)) } catch { return }
                        continue
                    }
                    if let unreachable = await applyRemote(page.entries) {
                        // Some entry could not be fetched: the cursor stays; applied entries
                        // are "nothing" the next time round.
                        throw unreachable
                    }
                }
                if page.cursor != cursor { try index.folders.setRemoteCursor(folder: id, page.cursor) }
                feedCatchingUp = page.hasMore
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                failures += 1
                let delay = Backoff(initial: 0.5, maximum: 30).delay(afterAttempt: failures - 1, jitter: Double.random(in: 0..<1))
                feedError = FeedProblem(message: "\(error)", retryAt: Date().addingTimeInterval(delay))
                logger.warning("change feed failed", metadata: ["error": "\(error)", "retry_in_s": "\(delay)"])
                do { try await Task.sleep(for: .seconds(delay)) } catch { return }
            }
        }
    }

    /// The delete-wave guard for remote deletes: a page that would delete too
    /// much of the folder waits for approval.
    private func remoteDeletesAllowed(_ entries: [WireEntry]) throws -> Bool {
        // What a server-side move leaves behind is not lost either.
        let tombstones = entries.filter { $0.deleted && $0.movedTo == nil }.map(\.path)
        guard !tombstones.isEmpty else { return true }
        let bases = try index.records.read(folder: id, paths: tombstones).base
        // Content that arrives at another path in the same page was moved, not lost.
        let arriving = Set(entries.filter { !$0.deleted && $0.kind == .file }.map(\.contentHash))
        let deletes = bases.values.filter { !$0.deleted && !($0.kind == .file && arriving.contains($0.contentHash)) }.count
        let guardrail = DeleteGuard(maxFraction: config.maxDeleteFraction, maxCount: config.maxDeleteCount)
        let live = try index.base.liveCount(folder: id)
        if remoteDeletesApproved || !guardrail.mustWait(deletes: deletes, liveEntries: live) {
            remoteDeletesApproved = false
            remoteDeletesHeld = 0
            return true
        }
        if remoteDeletesHeld != deletes {
            logger.warning("remote delete wave waits for `syncctl approve-deletes`", metadata: ["count": "\(deletes)"])
        }
        remoteDeletesHeld = deletes
        return false
    }

    /// `syncctl approve-deletes`: held local and remote delete waves go ahead.
    public func approveDeletes() async throws -> Int {
        let remote = remoteDeletesHeld
        remoteDeletesApproved = remote > 0
        return try await queue.approveDeletes() + remote
    }

    /// Applies remote entries (from the feed, the retry list, or the current entries a
    /// push conflicted with), one application at a time per folder. Entries that fail are
    /// kept and retried with backoff (`remote_retry`); the folder is not idle meanwhile.
    /// Returns the error when the server could not be reached for some of them.
    @discardableResult
    func applyRemote(_ entries: [WireEntry]) async -> RemoteError? {
        await withCheckedContinuation { applyTurns.request($0) }
        defer { applyTurns.leave() }
        pendingDownloads += entries.count
        defer { pendingDownloads -= entries.count }
        let device = await remote.deviceName ?? "device"
        let box = IgnoreBox(rules: ignore, excluded: excluded)
        let outcome = await applier.apply(
            entries, device: device, ownDeviceId: await remote.deviceId, skip: { box.skips($0, isDirectory: $1) })
        let retried = Set(outcome.failed.map(\.entry.path))
        for (path, message) in outcome.errors where !retried.contains(path) {
            logger.warning("remote change refused", metadata: ["path": "\(path)", "error": "\(message)"])
        }
        do {
            try index.retries.clear(folder: id, applied: outcome.applied)
            try index.retries.hold(folder: id, outcome.failed) { attempt in
                Self.retryBackoff.delay(afterAttempt: attempt, jitter: Double.random(in: 0..<1))
            }
            for (path, message) in outcome.errors where !retried.contains(path) {
                try index.errors.show(folder: id, path: path, message: message)
            }
            remoteRetries = try index.retries.count(folder: id)
        } catch {
            // The cursor must not move past entries that are neither applied nor kept.
            logger.error("cannot keep remote entries for a retry", metadata: ["folder": "\(id)", "error": "\(error)"])
            return RemoteError(kind: .transient, code: "local_index", message: "cannot record remote changes: \(error)")
        }
        if !outcome.pushes.isEmpty { journal(outcome.pushes) }
        return outcome.retryLater
    }

    /// Backoff of remote entries that could not be applied: soon at first, at most every 30 s.
    static let retryBackoff = Backoff(initial: 1, maximum: 30)

    /// Applies kept remote entries whose retry is due; checks once a second.
    func retryRemotePeriodically() async {
        while !Task.isCancelled {
            do {
                remoteRetries = try index.retries.count(folder: id)
                if remoteRetries > 0, await !queue.paused, await checkRoot() {
                    let due = try index.retries.due(folder: id)
                    if !due.isEmpty { await applyRemote(due) }
                }
            } catch {
                logger.error("cannot read remote entries kept for a retry", metadata: ["folder": "\(id)", "error": "\(error)"])
            }
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
        }
    }
}

/// One remote application at a time: the feed, retries and conflict answers take turns
/// (each waits for the one before it; every waiter is let in exactly once, in order).
struct ApplyTurns: Sendable {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Whether the caller may go at once; else it is queued with `continuation`.
    mutating func request(_ continuation: CheckedContinuation<Void, Never>) {
        if busy {
            waiting.append(continuation)
        } else {
            busy = true
            continuation.resume()
        }
    }

    /// The turn ends: the next waiter (if any) goes.
    mutating func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// Why the change feed is not being followed right now.
struct FeedProblem: Sendable {
    var message: String
    var retryAt: Date
}
