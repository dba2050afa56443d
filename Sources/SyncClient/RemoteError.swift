import SyncCore

/// The one error type of the client side of the protocol. `kind` drives what
/// the engine does: retry with backoff, refresh the token, or give up on the
/// path and show the message.
public struct RemoteError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Connection refused/reset, timeouts, 408, 429, 5xx: retry with backoff.
        case transient
        /// 401 after one shared refresh and one retry: the credential is bad.
        case unauthorized
        /// Validation, permission, not found: retrying cannot help.
        case permanent
    }

    public var kind: Kind
    /// HTTP status, when the server answered.
    public var status: Int?
    /// The server's error code (`invalid_path`, `hash_mismatch`, …) or a local one (`connection`).
    public var code: String
    public var message: String
    /// What caused it underneath, for the log.
    public var underlying: String?

    public init(kind: Kind, status: Int? = nil, code: String, message: String, underlying: String? = nil) {
        self.kind = kind
        self.status = status
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The server answered 507: its disk is full (retried like any transient error).
    public var isServerStorageFull: Bool { status == 507 }

    public var description: String {
        var text = "\(code): \(message)"
        if let status { text = "HTTP \(status) " + text }
        if let underlying { text += " (\(underlying))" }
        return text
    }

    static func classify(status: Int, body: ErrorBody?) -> RemoteError {
        let code = body?.error.code ?? "http_\(status)"
        let message = body?.error.message ?? "unexpected HTTP status \(status)"
        let kind: Kind
        switch status {
        case 401: kind = .unauthorized
        // A chunk the server holds damaged is not fixed by asking again: that entry fails
        // (and is retried with backoff) while the rest of the feed goes on.
        case 500 where code == "chunk_damaged": kind = .permanent
        case 408, 429, 500...599: kind = .transient
        default: kind = .permanent
        }
        return RemoteError(kind: kind, status: status, code: code, message: message)
    }

    static func connection(_ error: any Error) -> RemoteError {
        if let tls = RemoteClient.tlsFailure(error) { return tls }
        return RemoteError(kind: .transient, code: "connection", message: "server not reachable", underlying: "\(error)")
    }
}
