/// The daemon's one error shape, after NIOFS's `FileSystemError`: a code for scripts and
/// `--json`, a message for a person, the path it concerns (relative to its folder, when
/// there is one) and the underlying cause for the debug log.
///
/// `description` is what a person reads (the message, and the path); `debugDescription`
/// keeps the code and the whole chain of causes.
///
/// Two errors are equal when a person would read the same thing (code, message, path);
/// the cause is not compared.
public struct DaemonError: Error, CustomStringConvertible, CustomDebugStringConvertible, Sendable, Equatable {
    public enum Code: String, Sendable {
        case credentialUnsafe = "credential_unsafe"
        case credentialUnreadable = "credential_unreadable"
        case credentialRejected = "credential_rejected"
        /// `ca_file` cannot be read as PEM certificates.
        case caFile = "ca_file"
        case stateDirectory = "state_directory"
        /// Another syncd holds the state directory's lock.
        case stateDirectoryInUse = "state_directory_in_use"
        case index
        /// A row of the index holds a value no release writes (table, column and value named).
        case corruptIndex = "corrupt_index"
        case socketInUse = "socket_in_use"

        // One path in a folder (see DaemonError+Files.swift).
        /// A system call failed; `errnoValue` says which error.
        case io
        /// Bytes that do not match the hash the server named.
        case hashMismatch = "hash_mismatch"
        /// The user changed the path between planning and writing: planned again.
        case changedMeanwhile = "changed_meanwhile"
        /// A directory to be removed still holds something the server does not know.
        case notEmpty = "not_empty"
        /// A parent component is a symbolic link: nothing is written through it.
        case symlinkInPath = "symlink_in_path"
        /// A parent component is a file (or another non-directory).
        case notADirectory = "not_a_directory"
        /// Not a valid relative path (empty, absolute, `.` or `..` components).
        case invalidPath = "invalid_path"
        /// The folder root is not the directory that was synced (unmounted, replaced).
        case rootChanged = "root_changed"
        /// A directory a scan could not read (the rest of the scan went on).
        case unreadableDirectory = "unreadable_directory"
        /// `.syncignore` cannot be used (not a regular file, too large, unreadable).
        case ignoreFile = "ignore_file"
        /// A file type that is not synced (a FIFO, a socket, a device).
        case unsupportedKind = "unsupported_kind"
        /// A file that kept changing while it was read: read again shortly.
        case changing
        /// The server refused the change (validation, permission); the cause is its answer.
        case rejected
        /// The server could not be reached, or failed: retried with backoff.
        case serverUnreachable = "server_unreachable"
        /// An outcome could not be recorded in the index: tried again.
        case notRecorded = "not_recorded"
        /// A remote delete the last stop (a kill, a power cut) cut short, applied again; or one
        /// whose move to the trash could not be made durable, looked at again at the next start.
        case interrupted
        /// The disk (or the user's quota) is full: retried until space is freed.
        case diskFull = "disk_full"
        /// The server answered a download with an error.
        case server

        // A whole folder (the entries of status with an empty path).
        /// The server's disk is full: changes wait.
        case serverStorageFull = "server_storage_full"
        /// A delete wave waits for `syncctl approve-deletes`.
        case deletesHeld = "deletes_held"
        /// inotify cannot watch the folder (out of watches, for one).
        case watch
        /// The folder root is missing, unreadable or not the directory that was synced.
        case rootUnavailable = "root_unavailable"
        /// A name that cannot be synced (not UTF-8, not valid on the server, a case clash).
        case invalidName = "invalid_name"
        /// The server does not grant this device the folder (`sync-server folder grant`).
        case notGranted = "not_granted"
    }

    public var code: Code
    public var message: String
    public var path: String?
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, path: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.underlying = underlying
    }

    public var description: String {
        guard let path, !message.contains(path) else { return message }
        return "\(message) (\(path))"
    }

    public static func == (a: DaemonError, b: DaemonError) -> Bool {
        a.code == b.code && a.message == b.message && a.path == b.path
    }

    /// The chain of causes, for `--json` and debug logs (nil when there is none).
    public var cause: String? { underlying.map { String(reflecting: $0) } }

    public var debugDescription: String {
        var text = "\(code.rawValue): \(description)"
        if let underlying { text += "; cause: \(String(reflecting: underlying))" }
        return text
    }
}
