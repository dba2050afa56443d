import Foundation
import Hummingbird

/// Requires `Authorization: Bearer <token>` and puts the device session in
/// the context; missing, unknown or expired tokens get `401 unauthorized`.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let tokens: TokenStore

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw APIError.unauthorized("missing Authorization: Bearer header")
        }
        let prefix = "bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else {
            throw APIError.unauthorized("Authorization header is not a bearer token")
        }
        let token = header.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        guard let session = await tokens.session(for: token) else {
            throw APIError.unauthorized("unknown or expired access token")
        }
        var context = context
        context.session = session
        return try await next(request, context)
    }
}
