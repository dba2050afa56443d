/// Why the daemon cannot start: a code for scripts, a message for humans and
/// the underlying cause for the log.
public struct DaemonError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case credentialUnsafe = "credential_unsafe"
        case credentialUnreadable = "credential_unreadable"
        case credentialRejected = "credential_rejected"
        case stateDirectory = "state_directory"
        case index
        case socketInUse = "socket_in_use"
    }

    public var code: Code
    public var message: String
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        guard let underlying else { return message }
        return "\(message) (\(underlying))"
    }
}
