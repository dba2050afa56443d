/// The daemon's one error shape, after NIOFS's `FileSystemError`: a code for scripts and
/// `--json`, a message for a person, the path it concerns (relative to its folder, when
/// there is one) and the underlying cause for the debug log.
///
/// `description` is what a person reads (the message, and the path); `debugDescription`
/// keeps the code and the whole chain of causes.
public struct DaemonError: Error, CustomStringConvertible, CustomDebugStringConvertible, Sendable {
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

    public var debugDescription: String {
        var text = "\(code.rawValue): \(description)"
        if let underlying { text += "; cause: \(String(reflecting: underlying))" }
        return text
    }
}
