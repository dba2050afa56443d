import Foundation
import Testing

@testable import SyncDaemon

/// Deletes sent in several batches are judged as one wave over a minute; an approval
/// opens the wave for a minute. The clock is passed in.
@Suite struct DeleteWaveTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func batchesOfOneWaveAddUp() {
        var wave = DeleteWave(deleteGuard: DeleteGuard(maxFraction: 0.5))
        // 10 live entries: 3 then 2 deletes pass (5 of 10 is not more than half)…
        #expect(wave.admit(3, now: start) { 10 })
        #expect(wave.admit(2, now: start.addingTimeInterval(5)) { 7 })
        // …one more within the minute makes it 6 of the 10 the wave began with: held.
        #expect(!wave.admit(1, now: start.addingTimeInterval(10)) { 5 })
        // After the window the earlier ones no longer count.
        #expect(wave.admit(1, now: start.addingTimeInterval(71)) { 5 })
    }

    @Test func anApprovalOpensTheWaveForAMinute() {
        var wave = DeleteWave(deleteGuard: DeleteGuard(maxFraction: 0.5))
        #expect(!wave.admit(8, now: start) { 10 })
        wave.approve(now: start.addingTimeInterval(1))
        #expect(wave.admit(8, now: start.addingTimeInterval(2)) { 10 })
        #expect(wave.admit(2, now: start.addingTimeInterval(30)) { 2 })
        #expect(!wave.admit(50, now: start.addingTimeInterval(200)) { 60 })
    }

    @Test func anUnreadableFolderSizeHoldsTheDeletes() {
        var wave = DeleteWave(deleteGuard: DeleteGuard(maxFraction: 0.5))
        #expect(!wave.admit(2, now: start) { nil })
    }
}
