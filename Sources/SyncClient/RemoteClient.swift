import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SyncCore

/// Client of the server's `/v1` protocol. Holds the access token; concurrent
/// requests that find it expired share one refresh.
public actor RemoteClient {
    public let baseURL: String
    private let credential: String
    private let http: HTTPClient
    private let logger: Logger
    private var token: String?
    private var refreshing: Task<String, any Error>?
    public private(set) var deviceName: String?
    public private(set) var deviceId: String?
    /// Paces the chunk bytes sent and received (`upload_limit`, `download_limit`).
    public let bandwidth: BandwidthLimits

    /// The process's HTTP client. A connection that cannot be made fails the requests
    /// waiting for it (refused at once; unanswered after 5 s, its connect timeout), rather
    /// than the pool retrying until each request's own deadline (up to 300 s for a chunk):
    /// a server that is down fails requests within seconds, and the engine's backoff
    /// decides when to try again (see `baseConfiguration`).
    public static let sharedHTTP = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: baseConfiguration)

    public init(
        baseURL: String, credential: String, http: HTTPClient = RemoteClient.sharedHTTP,
        bandwidth: BandwidthLimits = BandwidthLimits(), logger: Logger
    ) {
        self.bandwidth = bandwidth
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.credential = credential.trimmingCharacters(in: .whitespacesAndNewlines)
        self.http = http
        self.logger = logger
    }

    // MARK: Token

    func currentToken() async throws(RemoteError) -> String {
        if let token { return token }
        return try await refreshToken(replacing: nil)
    }

    /// One refresh at a time; a caller whose token was already replaced just takes the new one.
    func refreshToken(replacing stale: String?) async throws(RemoteError) -> String {
        if let token, token != stale { return token }
        if let refreshing { return try await Self.await(refreshing) }
        let task = Task { [baseURL, credential, http] () throws -> TokenResponse in
            try await Self.exchange(baseURL: baseURL, credential: credential, http: http)
        }
        let stringTask = Task { () throws -> String in try await task.value.accessToken }
        refreshing = stringTask
        defer { refreshing = nil }
        do {
            let response = try await task.value
            token = response.accessToken
            deviceName = response.deviceName
            deviceId = response.deviceId
            return response.accessToken
        } catch let error as RemoteError {
            throw error
        } catch {
            throw RemoteError.connection(error)
        }
    }

    private static func await(_ task: Task<String, any Error>) async throws(RemoteError) -> String {
        do { return try await task.value } catch let error as RemoteError { throw error } catch {
            throw RemoteError.connection(error)
        }
    }

    private static func exchange(baseURL: String, credential: String, http: HTTPClient) async throws -> TokenResponse {
        var request = HTTPClientRequest(url: baseURL + "/v1/auth/token")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(TokenRequest(credential: credential))))
        let (status, body) = try await execute(http, request, timeout: .seconds(30))
        guard status == 200 else {
            var error = RemoteError.classify(status: status, body: decodeErrorBody(body))
            if status == 401 { error.message = "the server rejected this device's credential: " + error.message }
            throw error
        }
        return try JSONDecoder().decode(TokenResponse.self, from: Data(body))
    }

    // MARK: Sending

    /// Sends an authenticated request; on 401 refreshes the token once and retries once.
    func send(
        _ method: HTTPMethod, _ path: String, body: [UInt8]? = nil, contentType: String = "application/json",
        timeout: TimeAmount = .seconds(60), headers extra: [(String, String)] = []
    ) async throws(RemoteError) -> (status: Int, body: [UInt8]) {
        try await send(
            method, path, buffer: body.map { ByteBuffer(bytes: $0) }, contentType: contentType, timeout: timeout, headers: extra)
    }

    /// `send` with a body already in a buffer (uploads: read straight into it, not copied again).
    func send(
        _ method: HTTPMethod, _ path: String, buffer body: ByteBuffer?, contentType: String = "application/json",
        timeout: TimeAmount = .seconds(60), headers extra: [(String, String)] = []
    ) async throws(RemoteError) -> (status: Int, body: [UInt8]) {
        var token = try await currentToken()
        for attempt in 0..<2 {
            var request = HTTPClientRequest(url: baseURL + path)
            request.method = method
            request.headers.add(name: "Authorization", value: "Bearer " + token)
            for (name, value) in extra { request.headers.add(name: name, value: value) }
            if let body {
                request.headers.add(name: "Content-Type", value: contentType)
                request.body = .bytes(body)
            }
            let result: (Int, [UInt8])
            do {
                result = try await Self.execute(http, request, timeout: timeout)
            } catch {
                throw RemoteError.connection(error)
            }
            if result.0 == 401 && attempt == 0 {
                logger.debug("access token rejected, refreshing")
                self.token = nil
                token = try await refreshToken(replacing: token)
                continue
            }
            if (200..<300).contains(result.0) { return result }
            throw RemoteError.classify(status: result.0, body: Self.decodeErrorBody(result.1))
        }
        throw RemoteError(kind: .unauthorized, status: 401, code: "unauthorized", message: "access token rejected twice")
    }

    static let maxResponseBytes = 256 << 20

    /// The status and the body, copied once: from the parts as they arrive into an array made
    /// as large as the announced length (a chunk's megabytes are not gathered, then copied again).
    static func execute(_ http: HTTPClient, _ request: HTTPClientRequest, timeout: TimeAmount) async throws -> (Int, [UInt8]) {
        let response = try await http.execute(request, timeout: timeout)
        var body: [UInt8] = []
        if let announced = response.headers.first(name: "content-length").flatMap(Int.init), announced > 0 {
            guard announced <= maxResponseBytes else { throw NIOTooManyBytesError(maxBytes: maxResponseBytes) }
            body.reserveCapacity(announced)
        }
        for try await part in response.body {
            guard body.count + part.readableBytes <= maxResponseBytes else { throw NIOTooManyBytesError(maxBytes: maxResponseBytes) }
            body.append(contentsOf: part.readableBytesView)
        }
        return (Int(response.status.code), body)
    }

    static func decodeErrorBody(_ body: [UInt8]) -> ErrorBody? {
        do { return try JSONDecoder().decode(ErrorBody.self, from: Data(body)) } catch { return nil }
    }

    /// A hot path's reply (a feed page, a commit's results), read with `JSONReader`.
    func read<T: JSONReadable>(_ type: T.Type, _ body: [UInt8]) throws(RemoteError) -> T {
        do { return try JSONReader.read(type, from: body) } catch {
            throw RemoteError(kind: .permanent, code: "bad_response", message: "cannot decode \(T.self)", underlying: "\(error)")
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws(RemoteError) -> T {
        do { return try JSONDecoder().decode(type, from: Data(body)) } catch {
            throw RemoteError(kind: .permanent, code: "bad_response", message: "cannot decode \(T.self)", underlying: "\(error)")
        }
    }
}
