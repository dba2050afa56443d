import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Turns every error into an `ErrorBody` JSON response: `APIError` as is,
/// Hummingbird's own errors (404 for unknown routes, 413, …) mapped by status,
/// anything else a logged 500.
///
/// An error to a request with a body (400, 401, 403, 404, 413, 429: answered
/// perhaps before the body was read) and malformed HTTP framing close the
/// connection once the answer is written: the server neither reads nor waits
/// for the rest of that body.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            if error.status.kind == .serverError {
                context.logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            }
            return try Self.closing(error.response(from: request, context: context), request: request, context: context)
        } catch let error as HTTPParserError {
            let answer = APIError.badRequest("malformed HTTP request: \(error)", cause: error)
            return try Self.closing(
                answer.response(from: request, context: context), request: request, context: context, always: true)
        } catch let error as any HTTPResponseError {
            return try Self.closing(
                Self.translate(error, request: request).response(from: request, context: context), request: request,
                context: context)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            context.logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            return try APIError.internalError("internal server error", cause: error)
                .response(from: request, context: context)
        }
    }

    /// Statuses answered before a request body is read.
    static let unreadBodyStatuses: Set<HTTPResponse.Status> = [
        .badRequest, .unauthorized, .forbidden, .notFound, .contentTooLarge, .tooManyRequests,
    ]

    /// Marks `response` `Connection: close` and shuts the connection's input
    /// once it is written, when the request's body may still be unread.
    static func closing(_ response: Response, request: Request, context: Context, always: Bool = false) -> Response {
        let hasBody = request.headers[.transferEncoding] != nil
            || (request.headers[.contentLength].flatMap(Int.init) ?? 0) > 0
        guard always || (hasBody && unreadBodyStatuses.contains(response.status)), let channel = context.channel else {
            return response
        }
        var response = response
        response.headers[.connection] = "close"
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(writer)
            // The rest of the body is not read: no further request comes on this connection.
            channel.close(mode: .input, promise: nil)
        }
        return response
    }

    static func translate(_ error: any HTTPResponseError, request: Request) -> APIError {
        switch error.status {
        case .notFound:
            return .notFound("no route for \(request.method) \(request.uri.path)")
        case .contentTooLarge:
            return .tooLarge("request body too large")
        case .unauthorized:
            return .unauthorized("unauthorized")
        case .forbidden:
            return .forbidden("forbidden")
        case .badRequest:
            return .badRequest("bad request: \(error)", cause: error)
        default:
            return APIError(
                .init(rawValue: error.status.kind == .serverError ? "internal" : "bad_request"),
                status: error.status, "\(error)", cause: error)
        }
    }
}
