import Logging
import ServiceLifecycle
import ServiceSupport
import Testing

/// syncd's and sync-server's service groups (`ServiceGroupConfiguration.stoppingWithin`): a
/// service that does not finish its graceful shutdown is cancelled once the limit passes, so
/// SIGTERM always ends the program.
@Suite struct BoundedStopTests {
    /// Ignores graceful shutdown; ends only when cancelled.
    struct Stubborn: Service {
        func run() async throws {
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
    }

    @Test func aServiceIgnoringGracefulShutdownIsCancelledAtTheLimit() async throws {
        let group = ServiceGroup(
            configuration: .stoppingWithin(
                services: [Stubborn()], signals: [], logger: Logger(label: "test"),
                graceful: .milliseconds(200), cancelled: .seconds(30)))
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(50))
        let asked = ContinuousClock.now
        await group.triggerGracefulShutdown()
        // Bounded here too: without the limit the group would wait for ever.
        let ended = await withTaskGroup(of: Bool.self) { race in
            race.addTask { _ = await running.result; return true }
            race.addTask {
                // Waiting for a task's result does not end on cancellation: cancel the group's.
                try? await Task.sleep(for: .seconds(10))
                running.cancel()
                return false
            }
            let first = await race.next() ?? false
            race.cancelAll()
            return first
        }
        #expect(ended, "the group still ran 10 s after a graceful shutdown limited to 200 ms")
        #expect(ContinuousClock.now - asked >= .milliseconds(200))
    }
}
