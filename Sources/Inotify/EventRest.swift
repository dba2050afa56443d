import Glibc

/// After a read of events, the watcher thread leaves the inotify descriptor alone for a
/// moment, so that a burst of events (a batch of downloads, a tool writing many files) is
/// read a few hundred at a time instead of one wake-up, `poll` and `read` each: the kernel
/// queues them meanwhile. The first event after a quiet spell is read at once; an event of
/// a burst waits about `length` (up to twice that when a command arrives near its end: the
/// poll timeout is in whole milliseconds). Commands are taken at once throughout.
struct EventRest {
    /// How long the descriptor rests after a read that found events.
    static let length: UInt64 = 1_000_000  // nanoseconds
    private var until: UInt64 = 0

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    mutating func start(at now: UInt64) { until = now + Self.length }

    func isResting(at now: UInt64) -> Bool { now < until }

    /// The poll timeout in milliseconds: until the rest ends (rounded up), else `otherwise`.
    func timeout(at now: UInt64, otherwise: Int32) -> Int32 {
        guard isResting(at: now) else { return otherwise }
        let rest = Int32((until - now + 999_999) / 1_000_000)
        return otherwise < 0 ? rest : min(rest, otherwise)
    }
}
