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
}
