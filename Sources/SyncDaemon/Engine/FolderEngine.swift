import Foundation
import Inotify
import Logging
import SyncClient
import SyncConfig
import SyncControl

/// One synced folder: turns watcher events and scans into journaled work for
/// its `TransferQueue`, and answers for the folder in `syncctl status`.
public actor FolderEngine {
    public let id: String
    public let root: String
    let config: DaemonConfig.Folder
    let index: IndexStore
    public let queue: TransferQueue
    let progress: TransferProgress
    let remote: RemoteClient
    let applier: RemoteApplier
    let logger: Logger
    /// Paths we must never sync from inside the folder (e.g. the state dir).
    let excluded: [String]
    /// Where remote deletes put local files, and for how long.
    let trash: Trash
    let trashRetention: Duration

    var ignore: IgnoreRules {
        didSet { watchFilter.update(Self.watchDecision(root: root, IgnoreBox(rules: ignore, excluded: excluded))) }
    }
    /// Keeps ignored directories from being watched at all.
    let watchFilter: WatchFilter
    var phase: Phase = .starting
    /// A problem the last scan found (an empty root, a failed scan).
    var rootProblem: String?
    /// The root is gone or replaced (see `checkRoot`).
    var rootGone: RootTrouble?
    /// The root's identity when syncing began.
    var adoptedRoot: RootIdentity?
    /// Watching (part of) the tree failed; periodic scans cover it and watching is retried.
    var watchError: WatchError?
    /// Directories in the last full scan, root included: the watches the folder needs.
    var directoriesSeen = 0
    var watchedDirectories = 0
    /// When local changes are journaled (writes settling, deletes gathered), and the
    /// timers it asked for.
    var settleMachine: SettleStateMachine
    var quietTimers: [String: Task<Void, Never>] = [:]
    var deleteTimer: Task<Void, Never>?
    /// The paths being written, for the uploader (which leaves them to their writer's close).
    let openWrites: OpenWrites
    var feedError: FeedProblem?
    var pendingDownloads = 0
    /// Remote entries kept for a retry (could not be applied yet).
    var remoteRetries = 0
    /// Remote applications take turns (see `ApplyTurns`).
    var applyTurns = ApplyTurns()
    /// The last feed page said more changes are waiting: not idle yet.
    var feedCatchingUp = false
    /// Remote deletes waiting for approval, and the approval for the next page.
    var remoteDeletesHeld = 0
    var remoteDeletesApproved = false
    var rescanScheduled = false
    /// The folder's `.syncignore` could not be read (the rules in force are kept).
    var ignoreFileProblem: String?
    /// Names that cannot be synced as they are (see `acceptName`), with why.
    var nameProblems: [String: String] = [:]
    /// Names on disk that are not valid UTF-8 (escaped), with what to do.
    var undecodableNames: [String: String] = [:]
    /// The first scan removed the staging files an interrupted run left.
    var stagingCleared = false
    /// Local changes could not be journaled (the state dir's disk full?): shown, and
    /// a full scan is retried until one succeeds.
    var journalProblem: String?
    /// Local changes on their way to the journal, and the writer's wake-up.
    var journalBuffer = JournalBuffer()
    var journalWake: AsyncStream<Void>.Continuation?
    var journalFlushing = false
    var journalFlushWaiters: [CheckedContinuation<Void, Never>] = []
    var journalRetriedAt: Date?

    enum Phase: Sendable { case starting, scanning, running }

    init(
        config: DaemonConfig.Folder, index: IndexStore, queue: TransferQueue, progress: TransferProgress,
        remote: RemoteClient, applier: RemoteApplier, excluded: [String], trash: Trash, trashRetention: Duration,
        openWrites: OpenWrites, logger: Logger
    ) {
        self.openWrites = openWrites
        let settle = config.settle.components
        self.settleMachine = SettleStateMachine(settle: Double(settle.seconds) + Double(settle.attoseconds) / 1e18)
        self.trash = trash
        self.trashRetention = trashRetention
        self.remote = remote
        self.applier = applier
        self.id = config.id
        self.root = config.path
        self.config = config
        self.index = index
        self.queue = queue
        self.progress = progress
        self.excluded = excluded
        self.logger = logger
        let rules = IgnoreRules(patterns: IgnoreRules.defaults + config.ignore)
        self.ignore = rules
        self.watchFilter = WatchFilter(Self.watchDecision(root: config.path, IgnoreBox(rules: rules, excluded: excluded)))
    }

    static func watchDecision(root: String, _ box: IgnoreBox) -> @Sendable (String) -> Bool {
        { absolute in
            guard absolute.hasPrefix(root + "/") else { return absolute == root }
            return !box.skips(String(absolute.dropFirst(root.count + 1)), isDirectory: true)
        }
    }

    /// A scanner that skips what the current ignore rules skip.
    var scanner: Scanner {
        let box = IgnoreBox(rules: ignore, excluded: excluded)
        return Scanner(root: root, skip: { path, isDirectory in box.skips(path, isDirectory: isDirectory) })
    }

    /// Rebuilds the rules from the config and the folder's `.syncignore`.
    /// Returns whether they changed.
    @discardableResult
    func reloadIgnoreFile() -> Bool {
        var patterns = IgnoreRules.defaults + config.ignore
        do {
            if let text = try IgnoreRules.readFile(in: FolderRoot(root)) {
                patterns += text.split(whereSeparator: \.isNewline).map(String.init)
            }
            ignoreFileProblem = nil
        } catch {
            // Fewer rules would upload what the file ignores: keep the rules in force.
            let message = "cannot read \(IgnoreRules.fileName): \(error); the rules in force are kept"
            if ignoreFileProblem != message { logger.error("\(message)", metadata: ["folder": "\(id)"]) }
            ignoreFileProblem = message
            return false
        }
        let rules = IgnoreRules(patterns: patterns)
        defer { ignore = rules }
        return rules != ignore
    }

    /// Ignored by rules, or one of our own paths inside the folder.
    func skips(_ relative: String, isDirectory: Bool) -> Bool {
        IgnoreBox(rules: ignore, excluded: excluded).skips(relative, isDirectory: isDirectory)
    }

    func relative(_ absolute: String) -> String? {
        guard absolute.hasPrefix(root + "/") else { return nil }
        return String(absolute.dropFirst(root.count + 1))
    }
}

/// The ignore decision as a Sendable value the scanner can call from any thread.
struct IgnoreBox: Sendable {
    var rules: IgnoreRules
    var excluded: [String]

    func skips(_ path: String, isDirectory: Bool) -> Bool {
        for e in excluded where path == e || path.hasPrefix(e + "/") { return true }
        return rules.isIgnored(path, isDirectory: isDirectory)
    }
}
