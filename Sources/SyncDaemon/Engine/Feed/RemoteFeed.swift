import Foundation
import Logging
import SyncClient
import SyncCore

/// The remote side of one folder: follows the server's change feed (long-poll) and applies
/// what it brings, the entries kept for a retry, and the current entries a push conflicted
/// with, one application at a time (`ApplyTurns`). What it applies goes through the
/// `RemoteApplier`; local pushes it causes (conflict copies, edits that beat deletes) go to
/// the journal. A remote delete wave is applied without asking: it was held, and approved,
/// on the device where the deletes happened; what it deletes here goes to the trash.
actor RemoteFeed {
    /// Entries per feed page. Large, so that a directory move's tombstones and
    /// new entries usually arrive in one page and are applied as renames.
    /// `SYNCD_FEED_PAGE_LIMIT` sets it for tests (a catch-up of many pages with few files).
    static let pageLimit: Int = {
        guard let value = ProcessInfo.processInfo.environment["SYNCD_FEED_PAGE_LIMIT"], let limit = Int(value), limit > 0
        else { return 10_000 }
        return limit
    }()
    /// Backoff of remote entries that could not be applied: soon at first, at most every 30 s.
    static let retryBackoff = Backoff(initial: 1, maximum: 30)

    let folder: String
    let index: IndexStore
    let remote: RemoteClient
    let applier: RemoteApplier
    let queue: TransferQueue
    let journal: JournalWriter
    let ignore: FolderIgnore
    let logger: Logger

    var feedError: FeedProblem?
    var pendingDownloads = 0
    var retries = 0
    var catchingUp = false
    var applyTurns = ApplyTurns()
    /// Cuts a backoff short (`syncctl retry`).
    let retryAlarm = Alarm()

    init(
        folder: String, index: IndexStore, remote: RemoteClient, applier: RemoteApplier, queue: TransferQueue,
        journal: JournalWriter, ignore: FolderIgnore, logger: Logger
    ) {
        self.folder = folder
        self.index = index
        self.remote = remote
        self.applier = applier
        self.queue = queue
        self.journal = journal
        self.ignore = ignore
        self.logger = logger
    }

    var status: RemoteFeedStatus {
        RemoteFeedStatus(
            feedError: feedError, pendingDownloads: pendingDownloads, retries: retries, catchingUp: catchingUp)
    }

    /// The feed is what finds out that a server that went away is back (its pushes wait out
    /// backoffs of up to a minute): it asks at least every 10 s. A refused connection costs
    /// nothing; one that is not answered, its 5 s connect timeout.
    static let unreachableBackoff = Backoff(initial: 0.5, maximum: 10)

    /// A folder the server refuses this device (403) is asked for again rarely: it takes an
    /// admin to change that (or `syncctl retry` once one has).
    static let deniedBackoff = Backoff(initial: 5, maximum: 600)

    /// The server refused this device the folder at the last ask.
    var isDenied: Bool { feedError?.denied == true }

    /// `syncctl retry`: a feed waiting out a backoff (the server away, the folder not granted)
    /// asks again now, its backoff started over.
    func retryNow() {
        if feedError != nil { retryAlarm.ring() }
    }

    /// Follows the change feed until cancelled; nothing while paused or while `rootOK` says
    /// no. The cursor is stored only after the page's changes are applied or journaled.
    func follow(rootOK: @Sendable () async -> Bool) async {
        var failures = 0
        // The last ask itself failed (not the application of a page it brought): its next
        // answer means the server is back.
        var askFailed = false
        var ownMoveWaitStarted: ContinuousClock.Instant?
        var next: NextFeedPage?
        defer { next?.cancel() }
        while !Task.isCancelled {
            let paused = await queue.paused
            let rootOK = await rootOK()
            if paused || !rootOK {
                next?.cancel()
                next = nil
                do { try await Task.sleep(for: .milliseconds(500)) } catch { return }
                continue
            }
            var asked = false
            do {
                let cursor = try index.folders.state(folder: folder).remoteCursor
                let page: ChangesResponse
                if let ahead = next, ahead.since == cursor {
                    next = nil
                    page = try await ahead.page()
                } else {
                    next?.cancel()
                    next = nil
                    // After a failure the first ask returns at once: a long-poll would keep the
                    // problem shown (and pushes held, for a folder not granted) until it ends.
                    let wait = feedError == nil ? 25 : 0
                    page = try await remote.changes(folder: folder, since: cursor, waitSeconds: wait, limit: Self.pageLimit)
                }
                asked = true
                if askFailed {
                    // The server is back: the pushes waiting out a backoff for it go now.
                    askFailed = false
                    logger.info("server reachable again", metadata: ["folder": "\(folder)"])
                    await queue.serverIsBack()
                }
                feedError = nil
                retryAlarm.clear()  // a retry asked while this ask ran is answered by it
                if !page.entries.isEmpty {
                    // This device's own move, committed but not yet recorded (its reply late or
                    // lost and being retried): let the mover record it first, then read the page
                    // again. Applied now, its entries would retire the bases the mover needs.
                    // At most 15 s: a move row left `running` must not hold the feed for good.
                    let me = await remote.deviceId
                    if page.entries.contains(where: { $0.device == me && ($0.movedFrom != nil || $0.movedTo != nil) }),
                        try index.journal.hasMoveInFlight(folder: folder)
                    {
                        let started = ownMoveWaitStarted ?? ContinuousClock.now
                        ownMoveWaitStarted = started
                        if ContinuousClock.now - started < .seconds(15) {
                            do { try await Task.sleep(for: .milliseconds(250)) } catch { return }
                            continue
                        }
                        logger.warning("own move still being recorded after 15 s; applying the feed", metadata: ["folder": "\(folder)"])
                    }
                    ownMoveWaitStarted = nil
                    // Catching up: the next page is asked for while this one is applied.
                    if page.hasMore, page.cursor != cursor {
                        next = NextFeedPage(remote: remote, folder: folder, since: page.cursor, limit: Self.pageLimit)
                    }
                    switch await applyUnlessPaused(page.entries) {
                    case .done: break
                    case .paused: continue  // paused while the long-poll waited: the cursor stays
                    case .unreachable(let error):
                        // Some entry could not be fetched: the cursor stays; applied entries
                        // are "nothing" the next time round.
                        throw error
                    }
                }
                if page.cursor != cursor { try index.folders.setRemoteCursor(folder: folder, page.cursor) }
                catchingUp = page.hasMore
                // Only now: a page that cannot be applied (its chunks not served) is asked for
                // again with a growing backoff, not twice a second.
                failures = 0
            } catch is CancellationError {
                return
            } catch let error as RemoteError where error.status == 403 {
                if Task.isCancelled { return }
                failures += 1
                let delay = Self.deniedBackoff.delay(afterAttempt: failures - 1, jitter: Double.random(in: 0..<1))
                let device = await remote.deviceName ?? "NAME"
                feedError = FeedProblem(
                    message: "the server does not grant this device folder \(folder); on the server run "
                        + "`sync-server folder grant \(folder) --device \(device)` (asked again at the retry time, or at once after `syncctl retry`)",
                    retryAt: Date().addingTimeInterval(delay), denied: true)
                logger.error("the server refuses this device the folder", metadata: ["folder": "\(folder)", "retry_in_s": "\(delay)"])
                if await retryAlarm.sleep(seconds: delay) { failures = 0 }
            } catch let error as RemoteError where error.kind == .unauthorized {
                if Task.isCancelled { return }
                failures += 1
                let delay = Self.deniedBackoff.delay(afterAttempt: failures - 1, jitter: Double.random(in: 0..<1))
                feedError = FeedProblem(
                    message: "the server refuses this device's credential (\(error.message)): the device was revoked, or the "
                        + "server does not know it. On the server, `sync-server device add --name NAME --folder \(folder)` makes "
                        + "a new one; put it in the file credential_file names and restart syncd (asked again at the retry time)",
                    retryAt: Date().addingTimeInterval(delay), denied: true, code: .credentialRejected)
                logger.error("the server refuses this device's credential", metadata: ["folder": "\(folder)", "retry_in_s": "\(delay)"])
                if await retryAlarm.sleep(seconds: delay) { failures = 0 }
            } catch {
                if Task.isCancelled { return }
                if !asked { askFailed = true }
                failures += 1
                let delay = Self.unreachableBackoff.delay(afterAttempt: failures - 1, jitter: Double.random(in: 0..<1))
                feedError = FeedProblem(message: "\(error)", retryAt: Date().addingTimeInterval(delay))
                logger.warning("change feed failed", metadata: ["error": "\(error)", "retry_in_s": "\(delay)"])
                if await retryAlarm.sleep(seconds: delay) { failures = 0 }
            }
        }
    }
}
