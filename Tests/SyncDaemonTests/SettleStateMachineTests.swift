import Foundation
import Testing

@testable import SyncDaemon

/// When local changes are journaled, decided without a clock: the times are made up.
struct SettleStateMachineTests {
    typealias Machine = SettleStateMachine
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    @Test func aWriteIsJournaledOnceQuiet() {
        var machine = Machine(settle: 0.05)
        #expect(machine.written("a", at: t0) == [.startQuietTimer("a", after: 0.05, since: t0)])
        // More writes restart the timer; the path has been open since the first.
        #expect(machine.written("a", at: t0 + 0.03) == [.startQuietTimer("a", after: 0.05, since: t0)])
        #expect(machine.quiet("a") == [.stopQuietTimer("a"), .journal(["a"])])
        // A timer that fires after the path was handled journals nothing (and ends the mark).
        #expect(machine.quiet("a") == [.stopQuietTimer("a")])
    }

    @Test func aFileThatNeverStopsChangingIsStillJournaledEveryFiveSeconds() {
        var machine = Machine(settle: 0.05)
        _ = machine.written("log", at: t0)
        #expect(machine.written("log", at: t0 + 4.9) == [.startQuietTimer("log", after: 0.05, since: t0)])
        #expect(machine.written("log", at: t0 + 5) == [.startQuietTimer("log", after: 0.05, since: t0), .journal(["log"])])
        // The next snapshot is due five seconds after that one.
        #expect(machine.written("log", at: t0 + 9) == [.startQuietTimer("log", after: 0.05, since: t0 + 5)])
        #expect(machine.written("log", at: t0 + 10) == [.startQuietTimer("log", after: 0.05, since: t0 + 5), .journal(["log"])])
    }

    @Test func aCloseEndsTheWait() {
        var machine = Machine(settle: 0.05)
        _ = machine.written("a", at: t0)
        #expect(machine.done("a") == [.stopQuietTimer("a")])
        #expect(machine.writing.isEmpty)
        #expect(machine.quiet("a") == [.stopQuietTimer("a")])
    }

    @Test func deletesAreGatheredIntoOneWave() {
        var machine = Machine(settle: 0.05)
        #expect(machine.gone("d/1", at: t0) == [.stopQuietTimer("d/1"), .startDeleteTimer(after: 0.25)])
        #expect(machine.gone("d/2", at: t0 + 0.1) == [.stopQuietTimer("d/2"), .startDeleteTimer(after: 0.25)])
        #expect(machine.gone("d", at: t0 + 0.2) == [.stopQuietTimer("d"), .startDeleteTimer(after: 0.25)])
        #expect(machine.deletesGathered() == [.journal(["d/1", "d/2", "d"])])
        #expect(machine.deletesGathered() == [])
    }

    @Test func aLongWaveIsJournaledWithinTwoSeconds() {
        var machine = Machine(settle: 0.05)
        _ = machine.gone("x/0", at: t0)
        #expect(machine.gone("x/1", at: t0 + 1.875) == [.stopQuietTimer("x/1"), .startDeleteTimer(after: 0.125)])
        #expect(machine.gone("x/2", at: t0 + 2.5) == [.stopQuietTimer("x/2"), .startDeleteTimer(after: 0)])
        // The next wave starts its own two seconds.
        _ = machine.deletesGathered()
        #expect(machine.gone("y", at: t0 + 3) == [.stopQuietTimer("y"), .startDeleteTimer(after: 0.25)])
    }

    /// `git checkout` unlinks and re-creates: the new file is left to its own close or quiet,
    /// not read mid-write by the delete wave.
    @Test func aPathWrittenAgainAfterItsDeleteIsLeftToItsWriter() {
        var machine = Machine(settle: 0.05)
        _ = machine.gone("f", at: t0)
        _ = machine.gone("g", at: t0)
        _ = machine.written("f", at: t0 + 0.01)
        #expect(machine.deletesGathered() == [.journal(["g"])])
        #expect(machine.quiet("f") == [.stopQuietTimer("f"), .journal(["f"])])
    }

    @Test func aDeleteEndsAWriteInProgress() {
        var machine = Machine(settle: 0.05)
        _ = machine.written("f", at: t0)
        #expect(machine.gone("f", at: t0 + 0.01) == [.stopQuietTimer("f"), .startDeleteTimer(after: 0.25)])
        #expect(machine.quiet("f") == [.stopQuietTimer("f")])
        #expect(machine.deletesGathered() == [.journal(["f"])])
    }

    @Test func whatIsSettlingOrGatheredCountsAsNotJournaledYet() {
        var machine = Machine(settle: 0.05)
        #expect(machine.unjournaled == 0)
        _ = machine.written("a", at: t0)
        _ = machine.gone("b", at: t0)
        _ = machine.gone("c", at: t0)
        #expect(machine.unjournaled == 3)
        _ = machine.quiet("a")
        #expect(machine.unjournaled == 2)
        _ = machine.deletesGathered()
        #expect(machine.unjournaled == 0)
        _ = machine.written("d", at: t0)
        _ = machine.done("d")
        #expect(machine.unjournaled == 0)
    }
}
