/// Who waits for a path's push: those served by the run that is queued (`thisRun`), and
/// those who asked while a run of the path was already going (`nextRun`: that run read
/// the file before their change). Each waiter is resumed exactly once: `resolve` hands
/// this run's outcome to its waiters and moves the next run's up.
struct PushWaiters: Sendable {
    private var thisRun: [String: [CheckedContinuation<PushOutcome, Never>]] = [:]
    private var nextRun: [String: [CheckedContinuation<PushOutcome, Never>]] = [:]

    mutating func add(_ waiter: CheckedContinuation<PushOutcome, Never>, for path: String, afterCurrentRun: Bool) {
        if afterCurrentRun {
            nextRun[path, default: []].append(waiter)
        } else {
            thisRun[path, default: []].append(waiter)
        }
    }

    /// This run of `path` ended with `outcome`: its waiters are told.
    mutating func resolve(_ path: String, with outcome: PushOutcome) {
        for waiter in thisRun.removeValue(forKey: path) ?? [] { waiter.resume(returning: outcome) }
        promoteNextRun(path)
    }

    /// `path` runs again: the waiters who came during this run are served by that one.
    mutating func promoteNextRun(_ path: String) {
        if let next = nextRun.removeValue(forKey: path) { thisRun[path, default: []].append(contentsOf: next) }
    }
}
