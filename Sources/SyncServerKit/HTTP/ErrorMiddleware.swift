import Hummingbird
import Logging

/// Turns every error into an `ErrorBody` JSON response: `APIError` as is,
/// Hummingbird's own errors (404 for unknown routes, 413, …) mapped by status,
/// anything else a logged 500.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            if error.status.kind == .serverError {
                context.logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            }
            return try error.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            return try Self.translate(error, request: request).response(from: request, context: context)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            context.logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            return try APIError.internalError("internal server error", cause: error)
                .response(from: request, context: context)
        }
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
