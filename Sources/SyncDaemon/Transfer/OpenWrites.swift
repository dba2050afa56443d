import Foundation
import Synchronization

/// Files a writer still has open (modified, not yet closed or quiet), by when
/// that was first seen. The engine keeps it from inotify; the uploader leaves
/// such a file alone for the first `SettleTimes.longestSettle` (the
/// writer's close or quiet time journals it again), so an op that happens to
/// run mid-write (after a rename into place, a rescan) does not commit a
/// half-written state as one more version.
final class OpenWrites: Sendable {
    private let started = Mutex<[String: Date]>([:])

    func begin(_ path: String, at time: Date = Date()) {
        started.withLock { if $0[path] == nil { $0[path] = time } }
    }

    func end(_ path: String) {
        _ = started.withLock { $0.removeValue(forKey: path) }
    }

    /// Open for writing, first seen less than `window` seconds ago.
    func isRecentlyOpen(_ path: String, window: TimeInterval, now: Date = Date()) -> Bool {
        started.withLock { $0[path].map { now.timeIntervalSince($0) < window } ?? false }
    }
}
