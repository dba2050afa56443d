import Testing

@testable import Inotify

/// The watch filter is consulted once per directory, from the watcher thread.
struct WatchFilterTests {
    /// A closure stored bare in a Mutex grew by two thunks per call: 100,000
    /// directories made every later call walk (and eventually overflow) the chain.
    @Test func consultingItOftenCostsTheSameEachTime() {
        let filter = WatchFilter { !$0.hasSuffix("/build") }
        var watched = 0
        for i in 0..<200_000 where filter.shouldWatch(i % 10 == 0 ? "/r/d\(i)/build" : "/r/d\(i)") { watched += 1 }
        #expect(watched == 180_000)
        filter.update { _ in false }
        #expect(!filter.shouldWatch("/r/x"))
    }
}
