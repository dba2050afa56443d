import Hummingbird
import Logging
import SyncCore

/// `POST /v1/auth/token`: credential in, short-lived access token out.
struct AuthRoutes {
    let metadata: any MetadataBackend
    let tokens: TokenStore
    let tokenLifetime: Duration
    let metrics: ServerMetrics

    func register(on router: Router<ServerRequestContext>) {
        router.post("/v1/auth/token") { request, context in
            try await exchange(request, context: context)
        }
    }

    func exchange(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(TokenRequest.self)
        guard let credential = Credential(parsing: body.credential) else {
            metrics.authFailed(.malformedCredential)
            throw APIError.unauthorized("malformed credential")
        }
        let device = try await metadata.accounts.device(id: credential.deviceID)
        // Hash even for unknown devices, so timing does not tell which ids exist.
        let presented = credential.secretHash
        guard let device, ConstantTime.equals(presented, device.secretHash), device.revokedAt == nil else {
            context.logger.notice("rejected credential", metadata: ["device": "\(credential.deviceID)"])
            metrics.authFailed(.invalidCredential)
            throw APIError.unauthorized("invalid credential")
        }
        try await metadata.accounts.touch(device: device.id, at: MetadataStore.nowSeconds())
        let session = DeviceSession(deviceID: device.id, deviceName: device.name, folders: Set(device.folders))
        let token = await tokens.issue(for: session)
        // Other instances on the same database accept it too (PostgreSQL; nothing with SQLite).
        try await metadata.shareToken(
            hash: Hashing.sha256Hex(Array(token.utf8)), device: device.id,
            expiresAt: MetadataStore.nowSeconds() + tokenLifetime.components.seconds)
        let response = TokenResponse(
            accessToken: token, expiresIn: Int(tokenLifetime.components.seconds),
            deviceId: device.id, deviceName: device.name, folders: device.folders.sorted())
        return try JSONResponse.make(response)
    }
}
