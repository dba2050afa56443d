import Testing

@testable import SyncDaemon

/// A remote delete wave waits for approval; an approval lets the next judged page through once.
struct RemoteDeleteHoldTests {
    @Test func aWaveIsHeldUntilApprovedThenGoesOnce() {
        var hold = RemoteDeleteHold()
        #expect(hold.judge(deletes: 1, mustWait: false) == .go)
        #expect(hold.judge(deletes: 40, mustWait: true) == .hold(newly: true))
        #expect(hold.judge(deletes: 40, mustWait: true) == .hold(newly: false), "said once")
        #expect(hold.held == 40)
        #expect(hold.approve() == 40)
        #expect(hold.judge(deletes: 40, mustWait: true) == .go)
        #expect(hold.held == 0)
        #expect(hold.judge(deletes: 40, mustWait: true) == .hold(newly: true), "the approval was for one wave")
    }

    @Test func approvingWithNothingHeldApprovesNothingLater() {
        var hold = RemoteDeleteHold()
        #expect(hold.approve() == 0)
        #expect(hold.judge(deletes: 9, mustWait: true) == .hold(newly: true))
    }
}
