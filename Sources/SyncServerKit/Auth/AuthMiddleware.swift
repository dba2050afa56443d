import Foundation
import Hummingbird

/// Requires `Authorization: Bearer <token>` and puts the device session in
/// the context; missing, unknown or expired tokens get `401 unauthorized`.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let tokens: TokenStore
    let metadata: MetadataStore

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
        guard var session = await tokens.session(for: token) else {
            throw APIError.unauthorized("unknown or expired access token")
        }
        // Revocation and grant changes take effect on the next request, not the next token.
        guard let folders = try await metadata.activeGrants(device: session.deviceID) else {
            await tokens.revoke(device: session.deviceID)
            throw APIError.unauthorized("this device was revoked")
        }
        session.folders = folders
        var context = context
        context.session = session
        return try await next(request, context)
    }
}
