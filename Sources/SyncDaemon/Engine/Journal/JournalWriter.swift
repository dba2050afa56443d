import Foundation
import Logging
import Synchronization

/// Local changes reach the journal through one writer: what the watcher reports while a
/// transaction is being written goes into the next one. A burst of 10,000 new files is
/// then a few dozen transactions (an fsync each), not 10,000, and the event loop never
/// waits for the disk. `add` is synchronous (the engine's decisions keep their order);
/// the writing happens in `run` (and in `flush`, which a full scan calls before its own
/// write).
actor JournalWriter {
    private struct Inbox {
        var buffer = JournalBuffer()
        var wake: AsyncStream<Void>.Continuation?
    }

    let folder: String
    let queue: TransferQueue
    let logger: Logger
    private let inbox = Mutex(Inbox())
    private var flushing = false
    private var flushWaiters: [CheckedContinuation<Void, Never>] = []

    init(folder: String, queue: TransferQueue, logger: Logger) {
        self.folder = folder
        self.queue = queue
        self.logger = logger
    }

    /// Queues local changes for the journal.
    nonisolated func add(_ paths: [String], moves: [String: String] = [:], delay: TimeInterval = 0) {
        let wake = inbox.withLock { inbox in
            inbox.buffer.append(JournalRequest(paths: paths, moves: moves, delay: delay))
            return inbox.wake
        }
        wake?.yield()
    }

    /// Paths queued here or in the transaction being written: pending, for the status.
    nonisolated var pendingPaths: Int { inbox.withLock { $0.buffer.paths } }

    /// The writer, for as long as the engine runs. `failed` hears of each flush that left
    /// changes unwritten.
    func run(failed: @Sendable (any Error) async -> Void) async {
        let (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let queued = inbox.withLock { inbox in
            inbox.wake = continuation
            return !inbox.buffer.isEmpty
        }
        defer {
            inbox.withLock { $0.wake = nil }
            continuation.finish()
        }
        if queued { continuation.yield() }
        for await _ in signals {
            if let error = await flush() { await failed(error) }
        }
    }

    /// Writes everything queued, transaction after transaction, until nothing is left.
    /// One flush at a time (the writer's, or a full scan's before its own write): a second
    /// waits for the first, so transactions keep the order of the changes.
    /// Returns the error of a transaction that failed (its changes are only in memory now).
    func flush() async -> (any Error)? {
        while flushing { await withCheckedContinuation { flushWaiters.append($0) } }
        flushing = true
        defer {
            flushing = false
            let waiters = flushWaiters
            flushWaiters.removeAll()
            for waiter in waiters { waiter.resume() }
        }
        var failure: (any Error)?
        while true {
            let requests = inbox.withLock { $0.buffer.take() }
            if requests.isEmpty { break }
            do {
                try await queue.enqueue(requests)
            } catch {
                // The changes are only in memory now: a full scan finds them again once the
                // index can be written (see `ScanSchedule.journalFailed`).
                logger.error("cannot journal change", metadata: ["folder": "\(folder)", "error": "\(error)"])
                failure = error
            }
            inbox.withLock { $0.buffer.written() }
        }
        return failure
    }
}
