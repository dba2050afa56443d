import Testing

@testable import SyncDaemon

/// When the engine scans by itself, decided at made-up times.
struct ScanScheduleTests {
    typealias Schedule = ScanSchedule<TestInstant>

    @Test func aPeriodicScanIsDueAfterItsInterval() {
        var schedule = Schedule()
        #expect(schedule.nextDeadline == nil)
        #expect(schedule.schedulePeriodic(after: .seconds(3600), at: at(10)) == at(3610))
        #expect(schedule.due(at: at(3609)) == nil)
        #expect(schedule.due(at: at(3610)) == .periodic)
        #expect(schedule.due(at: at(3611)) == nil, "taken: the engine schedules the next after the scan")
        #expect(schedule.nextDeadline == nil)
    }

    @Test func aStormOfRequestsIsOneScanPlusOneForThoseDuringIt() {
        var schedule = Schedule()
        #expect(schedule.request("inotify events were lost", at: at(0)) == at(0.2))
        #expect(schedule.request("inotify events were lost", at: at(0.1)) == nil)
        #expect(schedule.due(at: at(0.2)) == .requested("inotify events were lost"))
        // While that scan runs:
        #expect(schedule.request("the folder root is back", at: at(0.5)) == at(0.7))
        #expect(schedule.request("inotify events were lost", at: at(0.6)) == nil)
        #expect(schedule.due(at: at(0.7)) == .requested("the folder root is back"))
        #expect(schedule.due(at: at(5)) == nil)
    }

    @Test func aFailedJournalIsRetriedSoonThenEveryFiveSeconds() {
        var schedule = Schedule()
        #expect(schedule.journalFailed(at: at(0)) == at(1))
        #expect(schedule.journalFailed(at: at(0.5)) == nil, "one retry at a time")
        #expect(schedule.due(at: at(1)) == .journalRetry)
        // The retry's scan failed again.
        #expect(schedule.journalFailed(at: at(1.2)) == at(6))
        #expect(schedule.due(at: at(6.3)) == .journalRetry)
        // Failing again long after the last retry: soon again.
        #expect(schedule.journalFailed(at: at(100)) == at(101))
    }

    @Test func theEarliestDueScanComesFirst() {
        var schedule = Schedule()
        _ = schedule.schedulePeriodic(after: .seconds(2), at: at(0))
        _ = schedule.request("lost", at: at(1))
        #expect(schedule.nextDeadline == at(1.2))
        #expect(schedule.due(at: at(3)) == .requested("lost"))
        #expect(schedule.due(at: at(3)) == .periodic)
        #expect(schedule.due(at: at(3)) == nil)
    }
}
