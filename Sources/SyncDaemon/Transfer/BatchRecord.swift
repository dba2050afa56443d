import Foundation
import SyncClient

/// Writes what one push batch decided for the paths that did not finish (deferred,
/// held, failed, unstable, transient) into the journal, and says what the
/// queue must tell their waiters. The finished paths are recorded first, by the queue
/// (`JournalStore.finish`), whose waiters are answered at once. The queue keeps the
/// waiters and its own state; this keeps the writes.
struct BatchRecord {
    /// Failed paths (shown, dropped until they change; waiters get the failure). A failure
    /// of the moment (`DaemonError.isPassing`) is not among them: it is tried again.
    var failed: [(path: String, error: DaemonError)] = []
    /// Paths that run again (held, unstable, transient, deferred, a passing failure): their
    /// waiters wait for that run.
    var nextRun: [String] = []
    /// Why the transient paths could not be sent, when some could not.
    var transientError: RemoteError?

    /// Tries of a path failing for a reason of the moment (`DaemonError.isPassing`) before it
    /// is shown as failed and dropped until it changes, as any other failure: with the push
    /// backoff, about four minutes (a disk that keeps answering EIO is not read for ever, and
    /// the folder then says `error`, not `syncing`).
    static let passingPatience = 10

    /// Records `result` for `ops` (attempt counts for the backoff of transient paths).
    static func writeUnfinished(
        _ result: PushBatchResult, ops: [JournalOp], folder: String, index: IndexStore, backoff: Backoff
    ) throws -> BatchRecord {
        let attempts = Dictionary(ops.map { ($0.path, $0.attempts) }, uniquingKeysWith: { a, _ in a })
        var record = BatchRecord()
        let deferred = result.paths { if case .deferred = $0 { true } else { false } }
        let forgetMove = Set(result.paths { $0 == .deferred(forgetMove: true) })
        let held = result.paths { $0 == .held }
        let unstable = result.paths { $0 == .unstable }
        let landing = result.paths { $0 == .landing }
        let transient = result.paths { $0 == .transient }
        if !deferred.isEmpty { try index.journal.release(folder: folder, paths: deferred, forgetMove: forgetMove) }
        if !held.isEmpty { try index.journal.hold(folder: folder, paths: held) }
        // Again once the backoff for the op's tries so far has passed, the error shown meanwhile.
        func retryWithBackoff(_ path: String, _ error: DaemonError) throws {
            let delay = backoff.delay(afterAttempt: attempts[path] ?? 0, jitter: Double.random(in: 0..<1))
            try index.journal.reschedule(folder: folder, paths: [path], error: error, retryAt: Date().addingTimeInterval(delay))
        }
        var passing: [String] = []
        for (path, fate) in result.fates {
            guard case .failed(let error) = fate else { continue }
            if error.isPassing && (attempts[path] ?? 0) < Self.passingPatience {
                // Out of file descriptors, the index busy: nothing about the path will change
                // to bring it back, so it is not dropped but tried again with the backoff.
                try retryWithBackoff(path, error)
                passing.append(path)
                continue
            }
            if try index.journal.fail(folder: folder, paths: [path], error: error).contains(path) {
                // Changed during the attempt: it runs again, and its waiters wait for that run.
                passing.append(path)
                continue
            }
            record.failed.append((path, error))
        }
        for path in unstable {
            try index.journal.reschedule(
                folder: folder, paths: [path], error: DaemonError(.changing, "file is changing while being read; retrying"),
                retryAt: Date().addingTimeInterval(0.2))
        }
        // Every 0.2 s at first; past `landingPatience` tries, every 5 s (an intent a failure
        // left waits for the next start: its op must not be hashed 5 times a second).
        let patient = landing.filter { (attempts[$0] ?? 0) < Uploader.landingPatience }
        for (paths, delay) in [(patient, 0.2), (landing.filter { !patient.contains($0) }, 5.0)] where !paths.isEmpty {
            try index.journal.reschedule(
                folder: folder, paths: paths,
                error: DaemonError(.changing, "a remote change is being applied here; looked at again once it is done"),
                retryAt: Date().addingTimeInterval(delay))
        }
        if !transient.isEmpty {
            let error = result.transientError ?? RemoteError(kind: .transient, code: "unknown", message: "the server could not be reached")
            record.transientError = error
            for path in transient {
                try retryWithBackoff(path, DaemonError(.serverUnreachable, error.description, underlying: error))
            }
        }
        record.nextRun = held + unstable + landing + transient + deferred + passing
        return record
    }
}
