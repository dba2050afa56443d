import Foundation

/// The time retention and garbage collection judge by. `SYNC_SERVER_NOW_OFFSET=<seconds>`
/// (tests only) moves it that far ahead, so a real server process can be made to act as if
/// the retention period and the collection grace period had passed; everything the server
/// records (commit times, when a chunk was uploaded) keeps the real time.
enum ServerClock {
    static let offset: TimeInterval = {
        guard let value = ProcessInfo.processInfo.environment["SYNC_SERVER_NOW_OFFSET"] else { return 0 }
        return TimeInterval(value) ?? 0
    }()

    static func now() -> Date { Date().addingTimeInterval(offset) }

    /// How old (by the real clock) a pack object no row names must be before a storage round
    /// deletes it: 24 h. `SYNC_SERVER_LEFTOVER_GRACE=<seconds>` (tests only) shortens it; the
    /// offset above does not move it (an upload in flight on a server run with an offset must
    /// not look a day old).
    static let leftoverGrace: Int64 = {
        guard let value = ProcessInfo.processInfo.environment["SYNC_SERVER_LEFTOVER_GRACE"] else { return ChunkGC.graceSeconds }
        return Int64(value) ?? ChunkGC.graceSeconds
    }()
}
