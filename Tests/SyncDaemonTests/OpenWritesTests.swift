import Foundation
import Testing

@testable import SyncDaemon

/// Files still open for writing are left to their writer's close for the
/// first few seconds; a continuous writer is pushed after that.
struct OpenWritesTests {
    @Test func recentWritesAreLeftAloneUntilClosedOrLong() {
        let writes = OpenWrites()
        let t0 = Date(timeIntervalSince1970: 1_000)
        writes.begin("a", at: t0)
        writes.begin("a", at: t0.addingTimeInterval(3))  // more writes keep the first time
        #expect(writes.isRecentlyOpen("a", window: 5, now: t0.addingTimeInterval(4)))
        #expect(!writes.isRecentlyOpen("a", window: 5, now: t0.addingTimeInterval(5.5)), "a long writer is pushed")
        #expect(!writes.isRecentlyOpen("b", window: 5, now: t0))
        writes.end("a")
        #expect(!writes.isRecentlyOpen("a", window: 5, now: t0.addingTimeInterval(1)))
    }
}
