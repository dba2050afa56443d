/// Barriers put into the watcher's stream by `syncctl wait` (see `InotifyWatcher.barrier`):
/// once one comes out of the stream, every event queued before it has been handled.
struct WatchBarriers: Sendable {
    private var last: UInt64 = 0
    private var passed: Set<UInt64> = []

    mutating func issue() -> UInt64 {
        last += 1
        return last
    }

    /// The stream brought `token`.
    mutating func pass(_ token: UInt64) { passed.insert(token) }

    /// True once `token` came through (and forgets it then).
    mutating func consume(_ token: UInt64) -> Bool { passed.remove(token) != nil }
}
