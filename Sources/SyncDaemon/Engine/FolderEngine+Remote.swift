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
                let cursor = try index.folderState(folder: id).remoteCursor
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
                        try index.hasMoveInFlight(folder: id)
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
                if page.cursor != cursor { try index.setRemoteCursor(folder: id, page.cursor) }
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
        let bases = try index.records(folder: id, paths: tombstones).base
        // Content that arrives at another path in the same page was moved, not lost.
        let arriving = Set(entries.filter { !$0.deleted && $0.kind == .file }.map(\.contentHash))
        let deletes = bases.values.filter { !$0.deleted && !($0.kind == .file && arriving.contains($0.contentHash)) }.count
        let guardrail = DeleteGuard(maxFraction: config.maxDeleteFraction)
        let live = try index.liveBaseCount(folder: id)
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

    /// Applies remote entries (from the feed, or the current entries a push conflicted with).
    /// Returns the error when the server could not be reached for some of them.
    @discardableResult
    func applyRemote(_ entries: [WireEntry]) async -> RemoteError? {
        pendingDownloads += entries.count
        defer { pendingDownloads -= entries.count }
        let device = await remote.deviceName ?? "device"
        let box = IgnoreBox(rules: ignore, excluded: excluded)
        let outcome = await applier.apply(
            entries, device: device, ownDeviceId: await remote.deviceId, skip: { box.skips($0, isDirectory: $1) })
        for (path, message) in outcome.errors { logger.warning("remote change not applied", metadata: ["path": "\(path)", "error": "\(message)"]) }
        recordRemoteErrors(outcome.errors)
        if !outcome.pushes.isEmpty { await journal(outcome.pushes) }
        return outcome.retryLater
    }

    private func recordRemoteErrors(_ errors: [(path: String, message: String)]) {
        do {
            for e in errors { try index.showError(folder: id, path: e.path, message: e.message) }
        } catch {
            logger.error("cannot record errors", metadata: ["error": "\(error)"])
        }
    }
}

/// Why the change feed is not being followed right now.
struct FeedProblem: Sendable {
    var message: String
    var retryAt: Date
}
