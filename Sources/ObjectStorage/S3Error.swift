/// An S3 request that failed: what was asked, of which object, and what the store said
/// (its status and error code, e.g. `404 NoSuchKey`, `403 SignatureDoesNotMatch`) or the
/// transport error underneath.
public struct S3Error: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The object (or bucket) is not there.
        case notFound
        /// The store refused the credentials or the request is not allowed.
        case denied
        /// A 5xx answer, a throttle, or the connection failed: worth another try.
        case transient
        /// Anything else: a 4xx that another try will not change.
        case rejected
    }

    public var kind: Kind
    /// `PUT`, `GET`, `DELETE`, ...
    public var operation: String
    /// `s3://bucket/key`.
    public var target: String
    /// HTTP status, nil when no answer came.
    public var status: Int?
    /// The store's error code (`NoSuchKey`), when it sent one.
    public var code: String?
    public var message: String
    public var underlying: (any Error)?

    public init(
        kind: Kind, operation: String, target: String, status: Int? = nil, code: String? = nil, message: String,
        underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.operation = operation
        self.target = target
        self.status = status
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        let answer = [status.map(String.init), code].compactMap { $0 }.joined(separator: " ")
        return "\(operation) \(target): " + (answer.isEmpty ? message : "\(answer): \(message)")
    }

    static func kind(status: Int, code: String?) -> Kind {
        switch status {
        case 404: return .notFound
        case 401, 403: return .denied
        case 408, 429, 500...599: return .transient
        default: return code == "SlowDown" || code == "RequestTimeout" ? .transient : .rejected
        }
    }
}
