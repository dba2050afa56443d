import Synchronization

/// Wakes one sleeper early. A ring with nobody waiting is kept for the next `wait()`, so a
/// ring between "look at the deadlines" and "go to sleep" is never lost.
final class Alarm: Sendable {
    private enum State {
        case quiet
        case rung
        case waiting(CheckedContinuation<Void, Never>)
    }

    private let state = Mutex(State.quiet)

    func ring() {
        let sleeper = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard case .waiting(let continuation) = state else {
                state = .rung
                return nil
            }
            state = .quiet
            return continuation
        }
        sleeper?.resume()
    }

    /// Forgets a ring nobody waited for (what it asked for has happened meanwhile).
    func clear() {
        state.withLock { state in
            if case .rung = state { state = .quiet }
        }
    }

    /// Returns when rung (at once if it rang since the last wait) or when the task is
    /// cancelled. One waiter at a time.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let goOn = state.withLock { state -> Bool in
                    switch state {
                    case .rung:
                        state = .quiet
                        return true
                    case .quiet:
                        if Task.isCancelled { return true }
                        state = .waiting(continuation)
                        return false
                    case .waiting:
                        preconditionFailure("Alarm.wait() has one waiter at a time")
                    }
                }
                if goOn { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard case .waiting(let continuation) = state else { return nil }
                state = .quiet
                return continuation
            }
            sleeper?.resume()
        }
    }
}

extension Alarm {
    /// Sleeps for `seconds`, or less when rung meanwhile (or rung since the last wait), or
    /// until the task is cancelled. Returns true when the ring ended it.
    func sleep(seconds: Double) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                // Cancelled when the alarm rang first: nothing was lost.
                do { try await Task.sleep(for: .seconds(seconds)) } catch { return false }
                return false
            }
            group.addTask { [self] in
                await wait()
                return !Task.isCancelled
            }
            let rung = await group.next() ?? false
            group.cancelAll()
            return rung
        }
    }
}
