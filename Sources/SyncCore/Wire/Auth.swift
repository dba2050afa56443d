/// `POST /v1/auth/token`: exchange the long-lived device credential for a short-lived access token.
public struct TokenRequest: Codable, Sendable {
    public var credential: String
    public init(credential: String) { self.credential = credential }
}

public struct TokenResponse: Codable, Sendable {
    public var accessToken: String
    public var expiresIn: Int
    public var deviceId: String
    public var deviceName: String
    public var folders: [String]

    public init(accessToken: String, expiresIn: Int, deviceId: String, deviceName: String, folders: [String]) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.deviceId = deviceId
        self.deviceName = deviceName
        self.folders = folders
    }

    enum CodingKeys: String, CodingKey {
        case folders
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case deviceId = "device_id"
        case deviceName = "device_name"
    }
}
