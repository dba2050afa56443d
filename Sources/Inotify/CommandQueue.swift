import CInotify
import Foundation
import Glibc

/// Requests for the inotify thread, handed over under a lock and signalled
/// through an eventfd so the thread wakes from `poll` at once.
final class CommandQueue: @unchecked Sendable {
    enum Command {
        case subscribe(
            root: String, filter: WatchFilter, continuation: AsyncStream<WatchMessage>.Continuation,
            reply: @Sendable (Result<Int, WatchError>) -> Void)
        case unsubscribe(root: String)
        case watch(path: String, reply: @Sendable (Result<Int, WatchError>) -> Void)
        case barrier(root: String, token: UInt64, reply: @Sendable (Bool) -> Void)
    }

    let eventFD: Int32
    private let lock = NSLock()
    private var commands: [Command] = []

    init() {
        eventFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
    }

    deinit { close(eventFD) }

    func send(_ command: Command) {
        lock.withLock { commands.append(command) }
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(eventFD, $0.baseAddress, 8) }
    }

    func drain() -> [Command] {
        var counter: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &counter) { read(eventFD, $0.baseAddress, 8) }
        return lock.withLock {
            defer { commands.removeAll() }
            return commands
        }
    }
}
