import Glibc
import Synchronization

/// Which directory a folder's root is: its device and inode when it was
/// adopted (the first good scan). A root that is gone, or is another
/// directory now (moved away and replaced, an unmounted disk's empty mount
/// point), must not be synced from: its "deletes" are not the user's.
struct RootIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
}

/// The adopted root identity, shared with the folder's writer (`FolderRoot`), which
/// checks it on every operation: a disk unmounted between two entries of one feed page
/// stops the rest of the page (kept for a retry) instead of writing into the empty
/// mount point. Unset until the first good scan.
final class RootPin: Sendable {
    private let identity = Mutex<RootIdentity?>(nil)

    var current: RootIdentity? { identity.withLock { $0 } }

    func set(_ value: RootIdentity) { identity.withLock { $0 = value } }
}

/// Why a folder may not sync now: what is wrong with its root, for people.
struct RootTrouble: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case missing, notADirectory, unreadable, replaced }
    var kind: Kind
    var message: String
}

/// What a look at the root found. The decision is `problem(…)`, pure; the look itself `look(at:)`.
///
/// An emptied root is not judged here: a user may delete the last file of a
/// small folder. Mass deletes wait for approval through the delete-wave guard,
/// and a root found empty at a scan while synced entries are known pauses the
/// folder (`FolderScanner.fullScan`).
enum RootLook: Sendable, Equatable {
    case directory(RootIdentity)
    case missing
    case notADirectory
    case unreadable(Int32)

    /// stat, following the user's own symlink to the root if there is one.
    static func look(at root: String) -> RootLook {
        var st = stat()
        guard stat(root, &st) == 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable(errno) }
        guard st.st_mode & S_IFMT == S_IFDIR else { return .notADirectory }
        guard access(root, R_OK | X_OK) == 0 else { return .unreadable(errno) }
        return .directory(RootIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)))
    }

    /// Why nothing may be sent or applied now, or nil. `adopted`: the root's
    /// identity when syncing began.
    func problem(root: String, adopted: RootIdentity?) -> RootTrouble? {
        let paused = "syncing paused, nothing is deleted"
        switch self {
        case .missing:
            return RootTrouble(kind: .missing, message: "folder root \(root) is missing (removed, moved away or unmounted); \(paused)")
        case .notADirectory:
            return RootTrouble(kind: .notADirectory, message: "folder root \(root) is not a directory; \(paused)")
        case .unreadable(let code):
            return RootTrouble(
                kind: .unreadable, message: "folder root \(root) cannot be read (\(String(cString: strerror(code)))); \(paused)")
        case .directory(let identity):
            guard let adopted, adopted != identity else { return nil }
            return RootTrouble(
                kind: .replaced,
                message: "folder root \(root) is not the directory that was synced (replaced, or its disk was unmounted); \(paused)")
        }
    }
}
