/// Wakes long-polling feed requests when a commit lands in their folder.
/// Remembers each folder's latest published rev, so a commit that lands
/// between a feed query and its wait is not missed. Every continuation is
/// resumed exactly once: by a publish, or by cancellation (timeout, client
/// gone, shutdown).
actor ChangeNotifier {
    private var latest: [String: Int64] = [:]
    private var waiters: [String: [UInt64: CheckedContinuation<Void, Never>]] = [:]
    private var nextID: UInt64 = 0

    /// Called after a commit to `folder` is durable; `rev` is the folder's new rev.
    func publish(folder: String, rev: Int64) {
        latest[folder] = max(latest[folder] ?? 0, rev)
        guard let parked = waiters.removeValue(forKey: folder) else { return }
        for continuation in parked.values { continuation.resume() }
    }

    /// Waits until a commit beyond `rev` is published for `folder`, `timeout`
    /// passes, or the task is cancelled. True if a commit woke it.
    func wait(folder: String, beyond rev: Int64, timeout: Duration) async -> Bool {
        if let known = latest[folder], known > rev { return true }
        let id = nextID
        nextID += 1
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.park(folder: folder, beyond: rev, id: id)
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Number of parked requests (tests check nothing leaks).
    var parkedCount: Int { waiters.values.reduce(0) { $0 + $1.count } }

    /// Parks unless a commit beyond `rev` was published meanwhile: the actor
    /// may have run a `publish` between `wait`'s first look and this child
    /// task getting here, and that wake-up would be lost.
    private func park(folder: String, beyond rev: Int64, id: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled || (latest[folder] ?? 0) > rev {
                    continuation.resume()
                } else {
                    waiters[folder, default: [:]][id] = continuation
                }
            }
        } onCancel: {
            Task { await self.unpark(folder: folder, id: id) }
        }
    }

    private func unpark(folder: String, id: UInt64) {
        guard let continuation = waiters[folder]?.removeValue(forKey: id) else { return }
        if waiters[folder]?.isEmpty == true { waiters[folder] = nil }
        continuation.resume()
    }
}
