import Glibc
import SyncCore

/// A system call that failed, kept as the cause of a `DaemonError`.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32
    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}

/// The errors of one path in a folder: writing a download, resolving a path beneath the
/// root, scanning, reading `.syncignore`.
extension DaemonError {
    /// `call` failed on `path` with `err` (errno by default).
    static func io(_ call: String, _ path: String, _ err: Int32 = errno) -> DaemonError {
        let cause = SystemCallError(call: call, errno: err)
        return DaemonError(.io, "\(cause)", path: path, underlying: cause)
    }

    /// Resolving `path` beneath the root stopped at `component`.
    static func containment(_ code: Code, path: String, component: String, errno err: Int32? = nil) -> DaemonError {
        let message: String
        switch code {
        case .symlinkInPath: message = "refused: \(component) is a symbolic link; nothing is written through it"
        case .notADirectory: message = "\(component) is not a directory"
        case .invalidPath: message = "refused: not a valid relative path"
        case .rootChanged:
            message = "the folder root is not the directory that was synced (unmounted or replaced); nothing is written there"
        default: message = "\(component): \(String(cString: strerror(err ?? EIO)))"
        }
        return DaemonError(code, message, path: path, underlying: err.map { SystemCallError(call: "open \(component)", errno: $0) })
    }

    /// The system error underneath (from the cause, or the nearest one for the code).
    public var errnoValue: Int32? {
        if let call = underlying as? SystemCallError { return call.errno }
        if let read = underlying as? ChunkingError { return read.errno }
        if let inner = underlying as? DaemonError { return inner.errnoValue }
        switch code {
        case .symlinkInPath, .invalidPath: return ELOOP
        case .notADirectory: return ENOTDIR
        case .rootChanged: return ESTALE
        default: return nil
        }
    }

    /// The disk (or the user's quota) is full: worth retrying once space is freed.
    public var isDiskFull: Bool { errnoValue == ENOSPC || errnoValue == EDQUOT }

    /// A failure of the moment, not of the path: the process or the system short of a
    /// resource (file descriptors, memory), an interrupted or busy call, an I/O error, the
    /// index unreadable for now. Worth trying again with a backoff: nothing about the path
    /// will change to bring it back (a permission or a name would: their change is seen).
    public var isPassing: Bool {
        // A folder not granted (yet): the admin's grant, not a change of the path, brings it back.
        if code == .notGranted { return true }
        // (A row no release writes is there for good.)
        if code == .index { return (underlying as? DaemonError)?.code != .corruptIndex }
        guard code == .io, let err = errnoValue else { return false }
        return [EMFILE, ENFILE, ENOMEM, ENOBUFS, EAGAIN, EINTR, EBUSY, EIO, ETIMEDOUT].contains(err)
    }

    /// Resolution beneath the root was refused (a symlink in the way, an invalid path):
    /// permanent, nothing was written.
    public var isRefusal: Bool { code == .symlinkInPath || code == .invalidPath }

    /// `io` failing with `err` (e.g. ENOENT: the path is gone).
    func isIO(_ err: Int32) -> Bool { code == .io && errnoValue == err }
}
