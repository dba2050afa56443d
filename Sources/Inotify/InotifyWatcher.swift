import CInotify
import Foundation
import Glibc

/// The one owner of libinotifytools in this process. libinotifytools keeps
/// process-global state, so every call into it happens on one dedicated
/// thread; subscribers get the events below their root through an
/// `AsyncStream` with a bounded buffer. A full buffer or a kernel queue
/// overflow becomes `.rescanNeeded`, never a silent drop.
public final class InotifyWatcher: @unchecked Sendable {
    public static let shared = InotifyWatcher()

    static let mask = UInt32(IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO
        | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)

    private let commands = CommandQueue()
    private let startLock = NSLock()
    private var thread: Thread?
    // Thread-owned state below: touched only on the watcher thread.
    private var state = ThreadState()

    private init() {}

    /// Watches `root` recursively and returns its events. The result says how
    /// many directories are watched, or why watching failed (the stream still
    /// works for what could be watched).
    public func subscribe(root: String, filter: WatchFilter = WatchFilter(), bufferLimit: Int = 65_536) async
        -> (stream: AsyncStream<WatchMessage>, watched: Result<Int, WatchError>)
    {
        startIfNeeded()
        let (stream, continuation) = AsyncStream<WatchMessage>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        let normalized = root.hasSuffix("/") ? String(root.dropLast()) : root
        let result = await withCheckedContinuation { (reply: CheckedContinuation<Result<Int, WatchError>, Never>) in
            commands.send(.subscribe(root: normalized, filter: filter, continuation: continuation) {
                reply.resume(returning: $0)
            })
        }
        continuation.onTermination = { [commands] _ in commands.send(.unsubscribe(root: normalized)) }
        return (stream, result)
    }

    /// Watches a directory tree again (after a watch failure, for instance).
    public func watch(path: String) async -> Result<Int, WatchError> {
        startIfNeeded()
        return await withCheckedContinuation { reply in
            commands.send(.watch(path: path) { reply.resume(returning: $0) })
        }
    }

    /// Reads what the kernel has queued so far, then puts `.barrier(token)` into the stream
    /// of the subscriber at `root`, after those events. False when it could not (no such
    /// subscriber, watching never started, or its buffer is full: a rescan is coming then).
    public func barrier(root: String, token: UInt64) async -> Bool {
        startIfNeeded()
        let normalized = root.hasSuffix("/") ? String(root.dropLast()) : root
        return await withCheckedContinuation { reply in
            commands.send(.barrier(root: normalized, token: token) { reply.resume(returning: $0) })
        }
    }

    private func startIfNeeded() {
        startLock.withLock {
            guard thread == nil else { return }
            let t = Thread { [self] in self.run() }
            t.name = "inotify"
            thread = t
            t.start()
        }
    }

    // MARK: - Watcher thread

    private func run() {
        guard inotifytools_initialize() != 0, let fd = InotifyFD.find() else {
            state.initError = inotifytools_error()
            failAllCommandsForever()
            return
        }
        state.watched.fd = fd
        // Reads are ours and non-blocking: a drain ends when the queue is empty.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var rest = EventRest()
        while true {
            let now = EventRest.now()
            // While resting the descriptor is left out of the poll: even asked for no events,
            // a polled descriptor wakes this thread at every event the kernel queues.
            var fds = [pollfd(fd: rest.isResting(at: now) ? -1 : fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: commands.eventFD, events: Int16(POLLIN), revents: 0)]
            // A MOVED_FROM waiting for its MOVED_TO is never left to wait for the next event.
            let idle: Int32 = state.hasUnpairedMoves ? 1 : (state.overflowPending ? 20 : -1)
            let n = poll(&fds, 2, rest.timeout(at: now, otherwise: idle))
            if n < 0 && errno != EINTR { break }
            if fds[1].revents & Int16(POLLIN) != 0 {
                for command in commands.drain() { handle(command) }
            }
            if fds[0].revents & Int16(POLLIN) != 0, drainEvents(fd: fd) > 0 { rest.start(at: EventRest.now()) }
            // A MOVED_FROM read last waits one rest for its MOVED_TO (the kernel queues the two
            // halves one after the other: a read may fall between them); read again, then
            // what is still unpaired left the tree.
            if state.hasUnpairedMoves, !rest.isResting(at: EventRest.now()) {
                let waited = state.unpairedMoves
                if drainEvents(fd: fd) > 0 { rest.start(at: EventRest.now()) }
                state.flushUnpairedMoves(only: waited)
            }
            if state.overflowPending { state.deliverOverflow() }
        }
    }

    private func failAllCommandsForever() {
        let error = WatchError(path: "", errno: state.initError, maxUserWatches: Int(inotifytools_get_max_user_watches()))
        while true {
            var fds = [pollfd(fd: commands.eventFD, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, -1)
            for command in commands.drain() {
                switch command {
                case .subscribe(let root, _, _, let reply):
                    var e = error
                    e.path = root
                    reply(.failure(e))
                case .watch(let path, let reply):
                    var e = error
                    e.path = path
                    reply(.failure(e))
                case .unsubscribe: break
                case .barrier(_, _, let reply): reply(false)
                }
            }
        }
    }

    private func handle(_ command: CommandQueue.Command) {
        switch command {
        case .subscribe(let root, let filter, let continuation, let reply):
            state.subscribers[root] = Subscriber(continuation: continuation, filter: filter)
            reply(TreeWatch.add(root, filter: filter, into: &state.watched))
        case .watch(let path, let reply):
            reply(TreeWatch.add(path, filter: state.filter(for: path), into: &state.watched))
        case .unsubscribe(let root):
            state.subscribers[root]?.continuation.finish()
            state.subscribers[root] = nil
            state.watched.remove(subtree: root)
        case .barrier(let root, let token, let reply):
            if state.watched.fd >= 0 { drainEvents(fd: state.watched.fd) }
            // Both halves of a rename are queued before it returns: what is unpaired now left.
            state.flushUnpairedMoves()
            reply(state.deliverBarrier(token, to: root))
        }
    }

    /// Reads every queued event; returns how many bytes of them there were. We read the
    /// descriptor ourselves (non-blocking): libinotifytools' `next_event` cannot return
    /// without blocking when the queue is empty, which would starve the command queue. A
    /// MOVED_FROM still unpaired at the end is kept for the next read (see `run`).
    @discardableResult
    private func drainEvents(fd: Int32) -> Int {
        let size = 256 << 10
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let n = read(fd, buffer, size)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            total += n
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let event = (buffer + offset).assumingMemoryBound(to: inotify_event.self)
                state.process(event)
                offset += MemoryLayout<inotify_event>.size + Int(event.pointee.len)
            }
        }
        return total
    }
}
