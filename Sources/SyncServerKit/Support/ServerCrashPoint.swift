import Foundation
import NIOConcurrencyHelpers

/// A fault-injection seam for crash tests: `SYNC_SERVER_CRASH_POINT=<point>` (or
/// `<point>@<n>`: the n-th time it is reached, counting from 1) makes the process kill
/// itself with SIGKILL at that point of garbage collection or compaction — a real kill -9
/// at an instant no outside timing can hit reliably. Unset (always, outside the crash
/// tests), it does nothing. The daemon's twin is `SYNCD_CRASH_POINT`.
enum ServerCrashPoint: String, Sendable, CaseIterable {
    /// Unreferenced chunks' index rows were dropped (committed); packs untouched.
    case afterDrop = "gc-after-drop"
    /// Half of a compaction's batch is written to the current pack, not synced.
    case tornCopy = "compact-torn-copy"
    /// A pack's live records are copied and fsynced; its index rows still point at it.
    case afterCopy = "compact-after-copy"
    /// The rows moved to the copies and the old pack is retired; its file is still there.
    case afterMove = "compact-after-move"
    /// The old pack's file is deleted; its `packs` row (retired) is still there.
    case afterDelete = "compact-after-delete"

    private static let armed: (point: String, occurrence: Int)? = {
        guard let value = ProcessInfo.processInfo.environment["SYNC_SERVER_CRASH_POINT"], !value.isEmpty else { return nil }
        guard let at = value.firstIndex(of: "@") else { return (value, 1) }
        return (String(value[..<at]), Int(value[value.index(after: at)...]) ?? 1)
    }()

    private static let reachedCount = NIOLockedValueBox(0)

    /// Whether reaching `point` now is the armed instant (counts each time it is asked).
    static func isDue(_ point: ServerCrashPoint) -> Bool {
        guard let armed, armed.point == point.rawValue else { return false }
        return reachedCount.withLockedValue { count in
            count += 1
            return count == armed.occurrence
        }
    }

    static func reached(_ point: ServerCrashPoint) {
        if isDue(point) { die() }
    }

    static func die() -> Never {
        kill(getpid(), SIGKILL)
        // SIGKILL cannot be caught; this only satisfies the type checker.
        preconditionFailure("SIGKILL did not end the process")
    }
}
