import Testing

@testable import SyncDaemon

/// When local changes are journaled, decided without a clock: the times are made up.
struct SettleStateMachineTests {
    typealias Machine = SettleStateMachine<TestInstant>

    @Test func aWriteIsJournaledOnceQuiet() {
        var machine = Machine(settle: .milliseconds(50))
        #expect(machine.written("a", at: at(0)) == [.markOpen("a"), .wake(at: at(0.05))])
        // More writes move the deadline; nothing is due before it.
        #expect(machine.written("a", at: at(0.03)) == [.markOpen("a"), .wake(at: at(0.08))])
        #expect(machine.nextDeadline == at(0.08))
        #expect(machine.timersFired(at: at(0.05)) == [])
        #expect(machine.timersFired(at: at(0.08)) == [.markClosed("a"), .journal(["a"])])
        #expect(machine.nextDeadline == nil)
        #expect(machine.timersFired(at: at(1)) == [])
    }

    @Test func aFileThatNeverStopsChangingIsStillJournaledEveryFiveSeconds() {
        var machine = Machine(settle: .milliseconds(50))
        _ = machine.written("log", at: at(0))
        #expect(machine.written("log", at: at(4.9)) == [.markOpen("log"), .wake(at: at(4.95))])
        #expect(machine.written("log", at: at(5)) == [.markOpen("log"), .wake(at: at(5.05)), .journal(["log"])])
        // The next snapshot is due five seconds after that one.
        #expect(machine.written("log", at: at(9)) == [.markOpen("log"), .wake(at: at(9.05))])
        #expect(machine.written("log", at: at(10)) == [.markOpen("log"), .wake(at: at(10.05)), .journal(["log"])])
    }

    @Test func aCloseEndsTheWait() {
        var machine = Machine(settle: .milliseconds(50))
        _ = machine.written("a", at: at(0))
        #expect(machine.done("a") == [.markClosed("a")])
        #expect(machine.settling.isEmpty)
        #expect(machine.nextDeadline == nil)
        #expect(machine.timersFired(at: at(1)) == [])
    }

    @Test func deletesAreGatheredIntoOneWave() {
        var machine = Machine(settle: .milliseconds(50))
        #expect(machine.gone("d/1", at: at(0)) == [.markClosed("d/1"), .wake(at: at(0.25))])
        #expect(machine.gone("d/2", at: at(0.1)) == [.markClosed("d/2"), .wake(at: at(0.35))])
        #expect(machine.gone("d", at: at(0.2)) == [.markClosed("d"), .wake(at: at(0.45))])
        #expect(machine.nextDeadline == at(0.45))
        #expect(machine.timersFired(at: at(0.35)) == [], "a later delete moved the deadline")
        #expect(machine.timersFired(at: at(0.45)) == [.journal(["d/1", "d/2", "d"])])
        #expect(machine.timersFired(at: at(1)) == [])
    }

    @Test func aLongWaveIsJournaledWithinTwoSeconds() {
        var machine = Machine(settle: .milliseconds(50))
        _ = machine.gone("x/0", at: at(0))
        #expect(machine.gone("x/1", at: at(1.875)) == [.markClosed("x/1"), .wake(at: at(2))])
        #expect(machine.gone("x/2", at: at(2.5)) == [.markClosed("x/2"), .wake(at: at(2.5))])
        // The next wave starts its own two seconds.
        #expect(machine.timersFired(at: at(2.5)) == [.journal(["x/0", "x/1", "x/2"])])
        #expect(machine.gone("y", at: at(3)) == [.markClosed("y"), .wake(at: at(3.25))])
    }

    /// `git checkout` unlinks and re-creates: the new file is left to its own close or quiet,
    /// not read mid-write by the delete wave.
    @Test func aPathWrittenAgainAfterItsDeleteIsLeftToItsWriter() {
        var machine = Machine(settle: .milliseconds(500))
        _ = machine.gone("f", at: at(0))
        _ = machine.gone("g", at: at(0))
        _ = machine.written("f", at: at(0.01))
        #expect(machine.timersFired(at: at(0.25)) == [.journal(["g"])])
        #expect(machine.timersFired(at: at(0.51)) == [.markClosed("f"), .journal(["f"])])
    }

    /// Due together (a late wake-up): acted on in the order they fell due.
    @Test func whatFellDueTogetherIsActedOnInDeadlineOrder() {
        var machine = Machine(settle: .milliseconds(100))
        _ = machine.gone("f", at: at(0))
        _ = machine.written("f", at: at(0.1))
        _ = machine.written("a", at: at(0.2))
        // f is quiet at 0.2, the wave is due at 0.25 (f again: journaled twice, joined), a at 0.3.
        #expect(
            machine.timersFired(at: at(1)) == [
                .markClosed("f"), .journal(["f"]), .journal(["f"]), .markClosed("a"), .journal(["a"]),
            ])
        var other = Machine(settle: .milliseconds(100))
        _ = other.written("b", at: at(0.2))
        _ = other.gone("f", at: at(0))
        _ = other.written("f", at: at(0.2))
        // The wave (0.25) first, without f, still being written then; b and f at their quiet (0.3).
        #expect(other.timersFired(at: at(1)) == [.markClosed("b"), .journal(["b"]), .markClosed("f"), .journal(["f"])])
    }

    @Test func aDeleteEndsAWriteInProgress() {
        var machine = Machine(settle: .milliseconds(50))
        _ = machine.written("f", at: at(0))
        #expect(machine.gone("f", at: at(0.01)) == [.markClosed("f"), .wake(at: at(0.26))])
        #expect(machine.nextDeadline == at(0.26), "its quiet time is gone with it")
        #expect(machine.timersFired(at: at(0.26)) == [.journal(["f"])])
    }

    @Test func whatIsSettlingOrGatheredCountsAsNotJournaledYet() {
        var machine = Machine(settle: .milliseconds(50))
        #expect(machine.unjournaled == 0)
        _ = machine.written("a", at: at(0))
        _ = machine.gone("b", at: at(0))
        _ = machine.gone("c", at: at(0))
        #expect(machine.unjournaled == 3)
        _ = machine.timersFired(at: at(0.05))
        #expect(machine.unjournaled == 2)
        _ = machine.timersFired(at: at(0.25))
        #expect(machine.unjournaled == 0)
        _ = machine.written("d", at: at(0))
        _ = machine.done("d")
        #expect(machine.unjournaled == 0)
    }
}
