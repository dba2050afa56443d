import Foundation
import Logging
import SyncConfig

/// Scanning one folder, and guarding its root. A full scan compares the tree on disk with
/// the index and journals every difference (`ScanDiff`); a directory that appears is
/// scanned alone. When to scan by itself is its `ScanSchedule` (periodic, on request,
/// after a failed journal write), woken by its own `TimerLoop`. It checks the root before
/// anything is sent or applied (`checkRoot`), and keeps the names that cannot be synced.
/// What it finds wrong is in `problems` (root, names, journal), shown in the status.
actor FolderScanner {
    let folder: String
    let root: String
    let rescanInterval: Duration
    let index: IndexStore
    let queue: TransferQueue
    let journal: JournalWriter
    let ignore: FolderIgnore
    let watch: FolderWatch
    let housekeeping: FolderHousekeeping
    /// Full scans are counted here.
    let metrics: DaemonMetrics
    let names: NFCNames
    /// The adopted root identity, shared with the folder's writer (see `RootPin`).
    let pin: RootPin?
    let logger: Logger

    let timers = TimerLoop(clock: ContinuousClock())
    var schedule = ScanSchedule<ContinuousClock.Instant>()
    /// The deadline the timer loop sleeps until (nil: none); an earlier one wakes it.
    var timerTarget: ContinuousClock.Instant?
    /// Scans the timer loop found due, for the scan loop.
    let due = AsyncStream<ScanReason>.makeStream()

    var phase = FolderPhase.starting
    /// Its part of the folder's problems: root, names, journal, directories seen.
    var problems = FolderProblems()
    /// For the status.
    var state: (FolderPhase, FolderProblems) { (phase, problems) }
    /// The root's identity when syncing began.
    var adoptedRoot: RootIdentity?
    /// The first scan removed the staging files an interrupted run left.
    var stagingCleared = false
    /// A scan that found the root as synced resolved the delete intents earlier processes
    /// left (`FolderHousekeeping.recoverInterruptedDeletes`).
    var deletesRecovered = false

    init(
        folder: String, root: String, rescanInterval: Duration, index: IndexStore, queue: TransferQueue,
        journal: JournalWriter, ignore: FolderIgnore, watch: FolderWatch, housekeeping: FolderHousekeeping, pin: RootPin?,
        metrics: DaemonMetrics, logger: Logger
    ) {
        self.metrics = metrics
        self.folder = folder
        self.root = root
        self.rescanInterval = rescanInterval
        self.index = index
        self.queue = queue
        self.journal = journal
        self.ignore = ignore
        self.watch = watch
        self.housekeeping = housekeeping
        self.names = NFCNames(folder: FolderRoot(root))
        self.pin = pin
        self.logger = logger
    }

    /// Before syncing starts: leftovers of earlier runs, then the first full scan.
    func start() async {
        housekeeping.expireTrash()
        housekeeping.recoverInterruptedDownloads()
        await fullScan()
        schedulePeriodicScan()
    }

    /// Until cancelled: the timer loop, the scans it finds due (one at a time), and a look
    /// at the root every second (an unmounted disk or a replaced root sends no inotify
    /// event we can rely on).
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await self.timers.run(next: { await self.nextDeadline() }, fire: { await self.timersFired(at: $0) })
            }
            group.addTask {
                for await reason in self.due.stream { await self.scan(for: reason) }
            }
            group.addTask {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: .seconds(1)) } catch { return }
                    _ = await self.checkRoot()
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Lost events mean a rescan; a storm of overflow notices means one rescan
    /// (plus one more if notices came in while it ran), not one per notice.
    func requestRescan(reason: String = "inotify events were lost") {
        if let due = schedule.request(reason, at: timers.clock.now) { deadline(due) }
    }

    /// Local changes could not be journaled (the state dir's disk full, say): shown, and a
    /// full scan finds them again once the index can be written.
    func journalFailed(_ error: any Error) {
        problems.journalProblem = "cannot record local changes: \(RemoteApplier.problem(error, path: nil).message); a full scan retries every 5 s"
        if let due = schedule.journalFailed(at: timers.clock.now) { deadline(due) }
    }

    /// The next periodic scan: every `rescan_interval` (jittered), at most 30 s apart while
    /// watching failed.
    func schedulePeriodicScan() {
        var interval = rescanInterval
        if watch.error != nil { interval = min(interval, .seconds(30)) }
        deadline(schedule.schedulePeriodic(after: interval * Double.random(in: 0.9...1.1), at: timers.clock.now))
    }

    private func nextDeadline() -> ContinuousClock.Instant? {
        timerTarget = schedule.nextDeadline
        return timerTarget
    }

    private func timersFired(at now: ContinuousClock.Instant) {
        while let reason = schedule.due(at: now) { due.continuation.yield(reason) }
    }

    /// A new deadline: wakes the timer loop if it sleeps until a later one (or none).
    func deadline(_ instant: ContinuousClock.Instant) {
        if timerTarget.map({ instant < $0 }) ?? true { timers.wake() }
    }
}
