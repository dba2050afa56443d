import Foundation
import Hummingbird
import HummingbirdTesting
import SyncCore
import Testing

/// Protocol-level helpers over HummingbirdTesting's client.
extension TestClientProtocol {
    func send(
        _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, headers: HTTPFields = [:],
        body: [UInt8]? = nil
    ) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await executeRequest(
            uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
    }

    func send(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: some Encodable)
        async throws -> TestResponse
    {
        let data = try JSONEncoder().encode(json)
        return try await send(
            method, uri, token: token, headers: [.contentType: "application/json"], body: Array(data))
    }

    /// Exchanges the credential; fails the test if that does not work.
    func token(_ credential: String) async throws -> String {
        let response = try await send(.post, "/v1/auth/token", json: TokenRequest(credential: credential))
        try #require(response.status == .ok, "token exchange: \(response.text)")
        return try response.decode(TokenResponse.self).accessToken
    }

    /// PUTs a chunk and returns its hash.
    @discardableResult
    func putChunk(_ bytes: [UInt8], token: String, folder: String = Fixture.folder) async throws -> String {
        let hash = Hashing.sha256Hex(bytes)
        let response = try await send(.put, "/v1/folders/\(folder)/chunks/\(hash)", token: token, body: bytes)
        try #require(response.status == .created || response.status == .ok, "chunk PUT: \(response.text)")
        return hash
    }

    func commit(_ changes: [CommitChange], token: String, folder: String = Fixture.folder) async throws -> TestResponse {
        try await send(.post, "/v1/folders/\(folder)/commit", token: token, json: CommitRequest(changes: changes))
    }

    /// Commits and requires a 200.
    func commitOK(_ changes: [CommitChange], token: String) async throws -> CommitResponse {
        let response = try await commit(changes, token: token)
        try #require(response.status == .ok, "commit: \(response.text)")
        return try response.decode(CommitResponse.self)
    }

    func changes(_ query: String = "", token: String?, folder: String = Fixture.folder) async throws -> TestResponse {
        try await send(.get, "/v1/folders/\(folder)/changes\(query.isEmpty ? "" : "?" + query)", token: token)
    }

    func feed(_ query: String = "", token: String) async throws -> ChangesResponse {
        let response = try await changes(query, token: token)
        try #require(response.status == .ok, "changes: \(response.text)")
        return try response.decode(ChangesResponse.self)
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var bytes: [UInt8] { Array(body.readableBytesView) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(bytes))
    }

    /// The `error.code` of an `ErrorBody`, nil if the body is not one.
    var errorCode: String? { try? decode(ErrorBody.self).error.code }
}
