import Testing
import TestSupport

@testable import SyncDaemon

/// The engine's timer loop: sleeps until the earliest deadline, is woken by an earlier one,
/// ends with its task. (Real clock, short times.)
@Suite(.timeLimit(.minutes(1)))
struct TimerLoopTests {
    /// The loop's owner: deadlines, and when each was acted on.
    actor Owner {
        var deadlines: [ContinuousClock.Instant] = []
        var fired: [(deadline: ContinuousClock.Instant, at: ContinuousClock.Instant)] = []

        func add(_ deadline: ContinuousClock.Instant) { deadlines.append(deadline) }
        func next() -> ContinuousClock.Instant? { deadlines.min() }
        func fire(_ now: ContinuousClock.Instant) {
            for deadline in deadlines where deadline <= now { fired.append((deadline, now)) }
            deadlines.removeAll { $0 <= now }
        }
    }

    @Test func anEarlierDeadlineWakesTheLoopAndEachFiresNotBeforeItsTime() async throws {
        let clock = ContinuousClock()
        let loop = TimerLoop(clock: clock)
        let owner = Owner()
        let far = clock.now + .seconds(600)
        await owner.add(far)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await loop.run(next: { await owner.next() }, fire: { await owner.fire($0) }) }
            try await clock.sleep(for: .milliseconds(20))
            // Sleeping for the far deadline: a nearer one wakes it.
            await owner.add(clock.now + .milliseconds(50))
            loop.wake()
            try await eventually("the near deadline fired") { await !owner.fired.isEmpty }
            let fired = await owner.fired
            #expect(fired.count == 1)
            for (deadline, at) in fired { #expect(at >= deadline) }
            #expect(await owner.next() == far, "the far deadline is still waited for")
            group.cancelAll()
        }
    }

    @Test func aRingWithNobodyWaitingIsKeptForTheNextWait() async {
        let alarm = Alarm()
        alarm.ring()
        await alarm.wait()  // returns at once: the ring was kept
        // A ring before or during the wait: the wait returns either way.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await alarm.wait() }
            group.addTask { alarm.ring() }
        }
    }

    @Test func aCancelledWaitReturns() async {
        let alarm = Alarm()
        let task = Task { await alarm.wait() }
        task.cancel()
        await task.value
    }
}
