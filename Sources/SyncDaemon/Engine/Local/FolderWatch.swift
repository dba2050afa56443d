import Inotify
import Logging
import Synchronization

/// The folder's inotify watches (through `InotifyWatcher`), and whether watching failed:
/// then periodic scans cover the folder (more often) and watching is retried.
final class FolderWatch: Sendable {
    let folder: String
    let root: String
    let logger: Logger
    private let state = Mutex<(error: WatchError?, directories: Int)>((nil, 0))

    init(folder: String, root: String, logger: Logger) {
        self.folder = folder
        self.root = root
        self.logger = logger
    }

    /// Why watching (part of) the tree failed, if it did.
    var error: WatchError? { state.withLock { $0.error } }
    /// Directories under watch.
    var directories: Int { state.withLock { $0.directories } }

    /// Starts watching the tree (but what `filter` leaves out); its events come in the stream.
    func subscribe(filter: WatchFilter) async -> AsyncStream<WatchMessage> {
        let started = ContinuousClock.now
        let (stream, watched) = await InotifyWatcher.shared.subscribe(root: root, filter: filter)
        switch watched {
        case .success(let count):
            state.withLock { $0.directories = count }
            logger.info(
                "watching", metadata: ["folder": "\(folder)", "directories": "\(count)", "took": "\(ContinuousClock.now - started)"])
        case .failure(let error):
            failed(error)
        }
        return stream
    }

    /// A directory could not be watched.
    func failed(_ error: WatchError) {
        state.withLock { $0.error = error }
        logger.error("\(error)", metadata: ["folder": "\(folder)"])
    }

    /// Watches what is not watched yet (directories no longer ignored, a root that is back).
    func rewatch() async {
        if case .failure(let error) = await InotifyWatcher.shared.watch(path: root) { state.withLock { $0.error = error } }
    }

    /// After a watch failure (the limit was raised meanwhile, say), watch the whole tree again.
    func retry() async {
        switch await InotifyWatcher.shared.watch(path: root) {
        case .success(let count):
            state.withLock { $0 = (nil, count) }
            logger.info("watching again", metadata: ["folder": "\(folder)", "directories": "\(count)"])
        case .failure(let error):
            state.withLock { $0.error = error }
        }
    }
}
