import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

@Suite("Authentication and access")
struct AuthTests {
    @Test func tokenExchangeReturnsTokenDeviceAndFolders() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let response = try await client.send(
                    .post, "/v1/auth/token", json: TokenRequest(credential: fixture.credential + "\n"))
                #expect(response.status == .ok)
                let token = try response.decode(TokenResponse.self)
                #expect(token.accessToken.count == 64)
                #expect(token.expiresIn == 3600)
                #expect(token.deviceId == fixture.deviceID)
                #expect(token.deviceName == "laptop")
                #expect(token.folders == [Fixture.folder])
                #expect(response.text.contains("\"access_token\""))
            }
        }
    }

    @Test(arguments: [
        "wrong-secret", "malformed", "unknown-device", "empty",
    ])
    func badCredentialIs401(kind: String) async throws {
        try await Fixture.with { fixture in
            let deviceID = fixture.deviceID
            let credential =
                switch kind {
                case "wrong-secret": deviceID + "." + String(repeating: "0", count: 64)
                case "malformed": "not a credential"
                case "unknown-device": "0123456789abcdef." + String(fixture.credential.suffix(64))
                default: ""
                }
            try await fixture.server.makeApplication().test(.router) { client in
                let response = try await client.send(.post, "/v1/auth/token", json: TokenRequest(credential: credential))
                #expect(response.status == .unauthorized)
                #expect(response.errorCode == "unauthorized")
            }
        }
    }

    @Test func requestsWithoutOrWithWrongTokenAre401() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let none = try await client.changes(token: nil)
                #expect(none.status == .unauthorized)
                #expect(none.errorCode == "unauthorized")
                let wrong = try await client.changes(token: String(repeating: "ab", count: 32))
                #expect(wrong.status == .unauthorized)
                #expect(wrong.errorCode == "unauthorized")
                let basic = try await client.send(
                    .get, "/v1/folders/docs/changes", headers: [.authorization: "Basic Zm9vOmJhcg=="])
                #expect(basic.status == .unauthorized)
            }
        }
    }

    @Test func expiredTokenIs401() async throws {
        try await Fixture.with(tokenLifetime: .milliseconds(200)) { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                try await Task.sleep(for: .milliseconds(300))
                let response = try await client.changes(token: token)
                #expect(response.status == .unauthorized)
                #expect(response.errorCode == "unauthorized")
            }
        }
    }

    @Test func folderWithoutGrantIs403EvenIfUnknown() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                for folder in [Fixture.privateFolder, "no-such-folder"] {
                    let feed = try await client.changes(token: token, folder: folder)
                    #expect(feed.status == .forbidden, "\(folder)")
                    #expect(feed.errorCode == "forbidden")
                    let put = try await client.send(
                        .put, "/v1/folders/\(folder)/chunks/\(Make.hash([1]))", token: token, body: [1])
                    #expect(put.status == .forbidden)
                    let commit = try await client.commit([Make.directory("d")], token: token, folder: folder)
                    #expect(commit.status == .forbidden)
                }
                #expect(try await fixture.server.metadata.folderRev(Fixture.privateFolder) == 0)
            }
        }
    }

    @Test func healthNeedsNoTokenAndUnknownRouteIsJSON404() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let health = try await client.send(.get, "/v1/health")
                #expect(health.status == .ok)
                #expect(health.text == #"{"status":"ok"}"#)
                let unknown = try await client.send(.get, "/v1/nothing/here")
                #expect(unknown.status == .notFound)
                #expect(unknown.errorCode == "not_found")
            }
        }
    }

    @Test func tokenStoreExpiresTokens() async throws {
        let store = TokenStore(lifetime: .milliseconds(500))
        let session = DeviceSession(deviceID: "0123456789abcdef", deviceName: "d", folders: ["docs"])
        let token = await store.issue(for: session)
        #expect(await store.session(for: token) == session)
        #expect(await store.session(for: "unknown") == nil)
        try await Task.sleep(for: .milliseconds(600))
        #expect(await store.session(for: token) == nil)
        #expect(await store.count == 0)
    }
}
