import Inotify
import Logging
import Synchronization

/// What is not synced in a folder: the configured rules, the folder's `.syncignore`, and
/// our own paths inside it (the state dir). Shared by the engine (events, scans), the
/// remote feed, and the watcher, which does not watch ignored directories at all.
/// `reload` picks up a changed `.syncignore`; one that cannot be read is a problem shown
/// in the status, and the rules in force are kept.
final class FolderIgnore: Sendable {
    let folder: String
    let root: String
    let logger: Logger
    /// The config's patterns (a reload may change them).
    private let configured: Mutex<[String]>
    private let excluded: [String]
    private let current: Mutex<(box: IgnoreBox, problem: String?)>
    /// Keeps ignored directories from being watched at all.
    let watchFilter: WatchFilter

    init(folder: String, root: String, patterns: [String], excluded: [String], logger: Logger) {
        self.folder = folder
        self.root = root
        self.logger = logger
        self.configured = Mutex(patterns)
        self.excluded = excluded
        let box = IgnoreBox(rules: IgnoreRules(config: patterns, file: []), excluded: excluded)
        self.current = Mutex((box, nil))
        // Our own downloads' staging files never reach the engine (6 events a file, each a hop).
        self.watchFilter = WatchFilter(Self.watchDecision(root: root, box), skippingFilesNamed: Scanner.stagingPrefix)
    }

    /// The rules in force now, as a value (a scan keeps the ones it started with).
    var rules: IgnoreBox { current.withLock { $0.box } }

    /// The folder's `.syncignore` could not be read (the rules in force are kept).
    var problem: String? { current.withLock { $0.problem } }

    /// Ignored by rules, or one of our own paths inside the folder.
    func skips(_ relative: String, isDirectory: Bool) -> Bool {
        rules.skips(relative, isDirectory: isDirectory)
    }

    /// A scanner that skips what the rules in force skip.
    var scanner: Scanner {
        let box = rules
        return Scanner(root: root, skip: { path, isDirectory in box.skipsItself(path, isDirectory: isDirectory) })
    }

    /// Rebuilds the rules from the config and the folder's `.syncignore`. Returns whether
    /// they changed. A file that cannot be read keeps the rules in force (fewer rules would
    /// upload what it ignores) and is a `problem`.
    @discardableResult
    func reload() -> Bool {
        let patterns = configured.withLock { $0 }
        var lines: [String] = []
        do {
            if let text = try IgnoreRules.readFile(in: FolderRoot(root)) {
                lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
            }
        } catch {
            let message = "cannot read \(IgnoreRules.fileName): \(error); the rules in force are kept"
            let new = current.withLock { current in
                defer { current.problem = message }
                return current.problem != message
            }
            if new { logger.error("\(message)", metadata: ["folder": "\(folder)"]) }
            return false
        }
        let box = IgnoreBox(rules: IgnoreRules(config: patterns, file: lines), excluded: excluded)
        let changed = current.withLock { current in
            defer { current = (box, nil) }
            return current.box.rules != box.rules
        }
        if changed { watchFilter.update(Self.watchDecision(root: root, box)) }
        return changed
    }

    /// New patterns from the config (a reload); `reload()` then rebuilds the rules.
    func setConfigured(_ patterns: [String]) {
        configured.withLock { $0 = patterns }
    }

    private static func watchDecision(root: String, _ box: IgnoreBox) -> @Sendable (String) -> Bool {
        { absolute in
            guard absolute.hasPrefix(root + "/") else { return absolute == root }
            return !box.skips(String(absolute.dropFirst(root.count + 1)), isDirectory: true)
        }
    }
}
