import Foundation
import Hummingbird
import SyncCore

/// Requires `Authorization: Bearer <token>` and puts the device session in
/// the context; missing, unknown or expired tokens get `401 unauthorized`.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let tokens: TokenStore
    let metadata: any MetadataBackend
    let inFlight: DeviceRequestLimiter
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            metrics.authFailed(.missingHeader)
            throw APIError.unauthorized("missing Authorization: Bearer header")
        }
        let prefix = "bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else {
            metrics.authFailed(.notBearer)
            throw APIError.unauthorized("Authorization header is not a bearer token")
        }
        let token = header.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        guard var session = try await session(for: token) else {
            metrics.authFailed(.unknownToken)
            throw APIError.unauthorized("unknown or expired access token")
        }
        // Revocation and grant changes take effect on the next request, not the next token.
        guard let folders = try await metadata.accounts.activeGrants(device: session.deviceID) else {
            await tokens.revoke(device: session.deviceID)
            metrics.authFailed(.revoked)
            throw APIError.unauthorized("this device was revoked")
        }
        session.folders = folders
        var context = context
        context.session = session
        guard await inFlight.enter(session.deviceID) else {
            throw APIError(
                .init(rawValue: "too_many_requests"), status: .tooManyRequests,
                "more than \(inFlight.limit) requests of this device in progress; retry later",
                headers: [.retryAfter: "1"])
        }
        let device = session.deviceID
        do {
            let response = try await next(request, context)
            await inFlight.leave(device)
            return response
        } catch {
            await inFlight.leave(device)
            throw error
        }
    }

    /// The token's session: issued here, or by another instance on the same database (then
    /// kept here until it expires: one lookup per token and instance).
    private func session(for token: String) async throws -> DeviceSession? {
        if let session = await tokens.session(for: token) { return session }
        let now = MetadataStore.nowSeconds()
        guard let shared = try await metadata.sharedToken(hash: Hashing.sha256Hex(Array(token.utf8)), now: now) else { return nil }
        let session = DeviceSession(deviceID: shared.device, deviceName: shared.name, folders: [])
        await tokens.adopt(token, session: session, expiresIn: .seconds(shared.expiresAt - now))
        return session
    }
}
