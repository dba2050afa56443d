import Foundation

/// Local changes reach the journal through one writer: what the watcher reports while a
/// transaction is being written goes into the next one. A burst of 10,000 new files is
/// then a few dozen transactions (an fsync each), not 10,000, and the event loop never
/// waits for the disk.
struct JournalBuffer: Sendable {
    private(set) var requests: [JournalRequest] = []
    /// Paths queued here or in the transaction being written: pending, for the status.
    private(set) var paths = 0
    private var writing = 0

    var isEmpty: Bool { requests.isEmpty }

    mutating func append(_ request: JournalRequest) {
        guard !request.paths.isEmpty else { return }
        requests.append(request)
        paths += request.paths.count
    }

    /// Everything queued so far, now being written.
    mutating func take() -> [JournalRequest] {
        let taken = requests
        requests.removeAll()
        writing = taken.reduce(0) { $0 + $1.paths.count }
        return taken
    }

    /// The transaction holding what `take` returned is written (or failed).
    mutating func written() {
        paths -= writing
        writing = 0
    }
}

extension FolderEngine {
    /// Queues local changes for the journal (see `JournalBuffer`).
    func journal(_ paths: [String], moves: [String: String] = [:], delay: TimeInterval = 0) {
        journalBuffer.append(JournalRequest(paths: paths, moves: moves, delay: delay))
        journalWake?.yield()
    }

    /// The writer, for as long as the engine runs.
    func writeJournal() async {
        let (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        journalWake = continuation
        defer {
            journalWake = nil
            continuation.finish()
        }
        if !journalBuffer.isEmpty { continuation.yield() }
        for await _ in signals { await flushJournal() }
    }

    /// Writes everything queued, transaction after transaction, until nothing is left.
    /// One flush at a time (the writer's, or a full scan's before its own write): a second
    /// waits for the first, so transactions keep the order of the changes.
    /// Returns false if a transaction failed (its changes are only in memory now).
    @discardableResult
    func flushJournal() async -> Bool {
        while journalFlushing { await withCheckedContinuation { journalFlushWaiters.append($0) } }
        journalFlushing = true
        defer {
            journalFlushing = false
            let waiters = journalFlushWaiters
            journalFlushWaiters.removeAll()
            for waiter in waiters { waiter.resume() }
        }
        var written = true
        while !journalBuffer.isEmpty {
            let requests = journalBuffer.take()
            do {
                try await queue.enqueue(requests)
            } catch {
                written = false
                // The changes are only in memory now: a full scan finds them again once the
                // index can be written (retried every few seconds, see `retryJournalIfNeeded`).
                logger.error("cannot journal change", metadata: ["folder": "\(id)", "error": "\(error)"])
                journalProblem = "cannot record local changes: \(RemoteApplier.describe(error)); a full scan retries every 5 s"
            }
            journalBuffer.written()
        }
        return written
    }
}
