extension FolderEngine {
    /// The timer loop asks: the settle machine's earliest deadline.
    func nextDeadline() -> ContinuousClock.Instant? {
        timerTarget = settle.nextDeadline
        return timerTarget
    }

    /// The timer loop woke: what is due is done.
    func timersFired(at now: ContinuousClock.Instant) {
        perform(settle.timersFired(at: now))
    }

    /// Carries out what the settle machine decided.
    func perform(_ actions: [SettleStateMachine<ContinuousClock.Instant>.Action]) {
        for action in actions {
            switch action {
            case .journal(let paths): journal.add(paths)
            case .markOpen(let path): openWrites.begin(path)
            case .markClosed(let path): openWrites.end(path)
            case .wake(let instant):
                // Wakes the timer loop if it sleeps until a later deadline (or none).
                if timerTarget.map({ instant < $0 }) ?? true { timers.wake() }
            }
        }
    }
}
