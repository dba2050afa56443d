/// The engine's one timer: a loop, run as a child of the engine's task group, that sleeps
/// until the earliest deadline its owner has, acts on what is due, and looks again. A
/// deadline earlier than the one being slept for `wake()`s it. The clock is injected.
struct TimerLoop<C: Clock>: Sendable {
    let clock: C
    private let alarm = Alarm()

    init(clock: C) {
        self.clock = clock
    }

    /// A deadline may have come that is earlier than the one being slept for: look again.
    func wake() {
        alarm.ring()
    }

    /// Until cancelled: `next()` says the earliest deadline (nil: none, sleep until woken),
    /// `fire(now)` acts on what is due at `now`.
    func run(next: () async -> C.Instant?, fire: (C.Instant) async -> Void) async {
        while !Task.isCancelled {
            let deadline = await next()
            if let deadline, deadline <= clock.now {
                await fire(clock.now)
                continue
            }
            await sleep(until: deadline)
            if Task.isCancelled { return }
            await fire(clock.now)
        }
    }

    /// Until `deadline` or a `wake()`, whichever comes first.
    private func sleep(until deadline: C.Instant?) async {
        await withTaskGroup(of: Void.self) { group in
            if let deadline {
                group.addTask { [clock] in
                    // Cancelled when the alarm rang first: nothing was lost.
                    do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
                }
            }
            group.addTask { [alarm] in await alarm.wait() }
            await group.next()
            group.cancelAll()
        }
    }
}
