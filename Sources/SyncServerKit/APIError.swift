import Foundation
import Hummingbird

/// The one error type of the server: a stable machine-readable `code`, the
/// HTTP status it maps to, a human message, and the underlying cause (if
/// any) for logs. Every non-2xx response body is its JSON form:
/// `{"error": {"code": "...", "message": "..."}}` (SyncCore's `ErrorBody`).
public struct APIError: Error, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let badRequest = Code(rawValue: "bad_request")
        public static let unauthorized = Code(rawValue: "unauthorized")
        public static let forbidden = Code(rawValue: "forbidden")
        public static let notFound = Code(rawValue: "not_found")
        public static let invalidPath = Code(rawValue: "invalid_path")
        public static let hashMismatch = Code(rawValue: "hash_mismatch")
        public static let missingChunks = Code(rawValue: "missing_chunks")
        public static let tooLarge = Code(rawValue: "too_large")
        public static let rangeNotSatisfiable = Code(rawValue: "range_not_satisfiable")
        public static let alreadyExists = Code(rawValue: "already_exists")
        public static let invalidArgument = Code(rawValue: "invalid_argument")
        public static let internalError = Code(rawValue: "internal")
        public static let notReady = Code(rawValue: "not_ready")
    }

    public var code: Code
    public var status: HTTPResponse.Status
    public var message: String
    /// For `missing_chunks`: the hashes the store lacks (also sent in the body).
    public var missing: [String]?
    /// Extra response headers (e.g. `Content-Range` on a 416).
    public var headers: HTTPFields
    public var cause: (any Error)?

    public init(
        _ code: Code, status: HTTPResponse.Status, _ message: String,
        missing: [String]? = nil, headers: HTTPFields = [:], cause: (any Error)? = nil
    ) {
        self.code = code
        self.status = status
        self.message = message
        self.missing = missing
        self.headers = headers
        self.cause = cause
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let cause { text += " (cause: \(cause))" }
        return text
    }
}

extension APIError {
    static func badRequest(_ message: String, cause: (any Error)? = nil) -> APIError {
        APIError(.badRequest, status: .badRequest, message, cause: cause)
    }
    static func unauthorized(_ message: String) -> APIError {
        APIError(.unauthorized, status: .unauthorized, message, headers: [.wwwAuthenticate: "Bearer"])
    }
    static func forbidden(_ message: String) -> APIError { APIError(.forbidden, status: .forbidden, message) }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, status: .notFound, message) }
    static func invalidPath(_ message: String, cause: (any Error)? = nil) -> APIError {
        APIError(.invalidPath, status: .badRequest, message, cause: cause)
    }
    static func hashMismatch(_ message: String) -> APIError { APIError(.hashMismatch, status: .badRequest, message) }
    static func missingChunks(_ hashes: [String]) -> APIError {
        let shown = hashes.prefix(20).joined(separator: ", ")
        let more = hashes.count > 20 ? " and \(hashes.count - 20) more" : ""
        return APIError(
            .missingChunks, status: .badRequest, "\(hashes.count) chunk(s) not on the server: \(shown)\(more)",
            missing: hashes)
    }
    static func tooLarge(_ message: String) -> APIError { APIError(.tooLarge, status: .contentTooLarge, message) }
    static func internalError(_ message: String, cause: (any Error)? = nil) -> APIError {
        APIError(.internalError, status: .internalServerError, message, cause: cause)
    }
    /// A store the server needs does not answer (`GET /v1/ready`).
    static func notReady(_ message: String) -> APIError {
        APIError(.notReady, status: .serviceUnavailable, message)
    }
    static func invalidArgument(_ message: String) -> APIError {
        APIError(.invalidArgument, status: .badRequest, message)
    }
    static func alreadyExists(_ message: String) -> APIError {
        APIError(.alreadyExists, status: .conflict, message)
    }
}

extension APIError: HTTPResponseError {
    /// The wire form: `ErrorBody` plus an optional `missing` list.
    struct Payload: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
            var missing: [String]?
        }
        var error: Detail
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let payload = Payload(error: .init(code: code.rawValue, message: message, missing: missing))
        var response = try JSONResponse.make(payload, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}
