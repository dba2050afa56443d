import Hummingbird
import NIOCore

/// Per-request context: Hummingbird's core storage plus the authenticated
/// device (set by `AuthMiddleware` on the routes that need a token).
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var session: DeviceSession?
    /// The connection, so an error answered before the body was read can close it.
    let channel: (any Channel)?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.session = nil
        self.channel = source.channel
    }

    /// The session, or 401 (only reachable if a route forgot the middleware).
    func requireSession() throws -> DeviceSession {
        guard let session else { throw APIError.unauthorized("missing bearer token") }
        return session
    }

    /// The `{folder}` path parameter, if this device was granted it; 403 otherwise
    /// (also for folders that do not exist, so their existence does not leak).
    func grantedFolder() throws -> String {
        let session = try requireSession()
        guard let folder = parameters.get("folder"), session.folders.contains(folder) else {
            throw APIError.forbidden("this device has no access to that folder")
        }
        return folder
    }
}

/// Reads `?name=value` query parameters with validation.
extension Request {
    /// The query string must be well-formed percent-encoding (`%` and two hex
    /// digits): a bad escape is a 400, not a value taken literally.
    func requireWellFormedQuery() throws {
        guard let query = uri.query else { return }
        var bytes = query.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else { continue }
            guard let a = bytes.next(), let b = bytes.next(), Self.isHexDigit(a), Self.isHexDigit(b) else {
                throw APIError.badRequest("malformed percent-encoding in the query string")
            }
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    func queryInt(_ name: String, default value: Int64, range: ClosedRange<Int64>) throws -> Int64 {
        guard let raw = uri.queryParameters.get(name) else { return value }
        guard let parsed = Int64(raw), range.contains(parsed) else {
            throw APIError.badRequest(
                "query parameter '\(name)' must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(raw)'")
        }
        return parsed
    }
}
