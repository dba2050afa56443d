import Foundation
import Logging
import SyncClient
import SyncConfig

/// One synced folder: wires its parts and performs what they decide. Watcher events become
/// journaled work here (`SettleStateMachine`, woken by one `TimerLoop`; `JournalWriter`)
/// for the folder's `TransferQueue`; the `FolderScanner` scans and guards the root; the
/// `RemoteFeed` applies the server's changes; `syncctl status` is built from the parts'
/// problems and facts (`FolderStatusBuilder`). See docs/architecture.md, "The engine".
public actor FolderEngine {
    public let id: String
    public let root: String
    let index: IndexStore
    public let queue: TransferQueue
    let progress: TransferProgress
    let logger: Logger
    /// What is not synced (config, `.syncignore`, our own paths), shared with the scanner,
    /// the feed and the watcher.
    let ignore: FolderIgnore
    let watch: FolderWatch
    /// Local changes on their way to the journal.
    let journal: JournalWriter
    let scanner: FolderScanner
    /// The server's changes, applied to the folder.
    let feed: RemoteFeed
    let restorer: RemoteRestore
    /// Downloads landing, whose own events are dropped.
    let echoes: DownloadEchoes
    /// Big downloads cut short, kept for their next try: saved in the index when the engine
    /// stops, for the next start (decision 0036).
    let partials: PartialDownloads
    /// The folder, for a look at what an event left (through the pinned root).
    let folder: FolderRoot
    /// The paths being written, for the uploader (which leaves them to their writer's close).
    let openWrites: OpenWrites
    /// Lost inotify events are counted here (and passed on to the scanner).
    let metrics: DaemonMetrics

    /// The timer of the settle machine (and the engine's clock).
    let timers = TimerLoop(clock: ContinuousClock())
    /// When local changes are journaled (writes settling, deletes gathered).
    var settle: SettleStateMachine<ContinuousClock.Instant>
    /// The deadline the timer loop sleeps until (nil: none); an earlier one wakes it.
    var timerTarget: ContinuousClock.Instant?
    /// Barriers of `syncctl wait` that came through the watcher's stream.
    var barriers = WatchBarriers()
    /// The directories a download's echoes are looked at through (`EchoDirectories`).
    var echoDirectories = EchoDirectories()

    init(
        config: DaemonConfig.Folder, index: IndexStore, queue: TransferQueue, progress: TransferProgress,
        remote: RemoteClient, applier: RemoteApplier, excluded: [String], trash: Trash, trashRetention: Duration,
        openWrites: OpenWrites, metrics: DaemonMetrics = DaemonMetrics(), logger: Logger
    ) {
        self.metrics = metrics
        self.id = config.id
        self.root = config.path
        self.index = index
        self.queue = queue
        self.progress = progress
        self.logger = logger
        self.openWrites = openWrites
        self.echoes = applier.echoes
        self.partials = applier.partials
        self.folder = applier.materializer.folder
        let ignore = FolderIgnore(folder: id, root: root, patterns: config.ignore, excluded: excluded, logger: logger)
        let watch = FolderWatch(folder: id, root: root, logger: logger)
        let journal = JournalWriter(folder: id, queue: queue, logger: logger)
        self.ignore = ignore
        self.watch = watch
        self.journal = journal
        let housekeeping = FolderHousekeeping(
            folder: id, root: FolderRoot(root), index: index, trash: trash, trashRetention: trashRetention, logger: logger,
            partials: applier.partials)
        scanner = FolderScanner(
            folder: id, root: root, rescanInterval: config.rescanInterval, index: index, queue: queue, journal: journal,
            ignore: ignore, watch: watch, housekeeping: housekeeping, pin: applier.materializer.folder.pin,
            metrics: metrics, logger: logger)
        feed = RemoteFeed(
            folder: id, index: index, remote: remote, applier: applier, queue: queue, journal: journal, ignore: ignore,
            logger: logger)
        restorer = RemoteRestore(folder: id, remote: remote, restores: applier.restores, logger: logger)
        settle = SettleStateMachine(settle: config.settle)
    }

    func relative(_ absolute: String) -> String? {
        guard absolute.hasPrefix(root + "/") else { return nil }
        return String(absolute.dropFirst(root.count + 1))
    }
}
