import Foundation
import Glibc

/// A fault-injection seam for crash tests: `SYNCD_CRASH_POINT=<point>:<path>` makes
/// syncd kill itself with SIGKILL when it reaches `<point>` for `<path>` — a real
/// kill -9 at an instant no outside timing can hit reliably. Unset (always, outside
/// the crash tests), it does nothing.
enum CrashPoint: String, Sendable {
    /// A download is recorded in the index; its staging file is not renamed into place yet.
    case beforeRename = "before-rename"
    /// A download is renamed into place and recorded, but the rename is not made durable
    /// yet, nor the download recorded as landed: a power cut here may lose the rename.
    case beforeLanded = "before-landed"
    /// A remote directory move is renamed whole and made durable; its records are not
    /// re-keyed yet (for the directory's new path).
    case beforeMoveRecorded = "before-move-recorded"
    /// A run of files renamed for remote moves is renamed and made durable; their records
    /// are not written yet (for any of their new paths).
    case beforeRenamesRecorded = "before-renames-recorded"
    /// A run of remote deletes is recorded, each with an intent; no file of it is moved to
    /// the trash yet.
    case beforeDeletesTrashed = "before-deletes-trashed"
    /// A run of remote deletes is recorded, and what comes before this path in it is moved to
    /// the trash (not durably yet); this path is not moved (a directory: not removed) yet.
    case beforeDeleteRemoved = "before-delete-removed"
    /// A remote delete's file is on its way to a trash on another file system: renamed to a
    /// trash staging name beside its old place, not copied to the trash yet.
    case beforeTrashCopy = "before-trash-copy"
    /// The same, its bytes copied to a temporary name in the trash, not renamed to its own yet.
    case duringTrashCopy = "during-trash-copy"
    /// A run of remote deletes is moved to the trash and made durable; its intents are not
    /// dropped yet.
    case beforeDeletesDone = "before-deletes-done"
    /// The server answered a commit holding the path; nothing of it is recorded here yet.
    case afterCommit = "after-commit"

    private static let armed: (point: String, path: String)? = {
        guard let value = ProcessInfo.processInfo.environment["SYNCD_CRASH_POINT"],
            let colon = value.firstIndex(of: ":")
        else { return nil }
        return (String(value[..<colon]), String(value[value.index(after: colon)...]))
    }()

    static func reached(_ point: CrashPoint, path: String) {
        reached(point, paths: [path])
    }

    static func reached(_ point: CrashPoint, paths: [String]) {
        guard let armed, armed.point == point.rawValue, paths.contains(armed.path) else { return }
        kill(getpid(), SIGKILL)
    }
}
