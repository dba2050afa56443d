import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

/// `sync-server device revoke` bites at once: the token a device holds stops
/// working on its next request, and its credential gets no new one.
@Suite("Revocation")
struct RevocationTests {
    @Test func aRevokedDevicesTokenAndCredentialAreRefusedAtOnce() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                #expect(try await client.changes(token: token).status == .ok)
                // Another process (the admin command) on the same data directory.
                let admin = try ServerAdmin(dataDir: fixture.dataDir)
                let revoked = try await admin.revokeDevice("laptop")
                #expect(revoked.revoked && revoked.id == fixture.deviceID)
                let after = try await client.changes(token: token)
                #expect(after.status == .unauthorized)
                #expect(after.text.contains("revoked"))
                let exchange = try await client.send(.post, "/v1/auth/token", json: TokenRequest(credential: fixture.credential))
                #expect(exchange.status == .unauthorized)
                #expect(try await admin.devices().map(\.revoked) == [true])
            }
        }
    }

    @Test func otherDevicesKeepWorkingAndAmbiguousNamesNeedAnID() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let other = try await fixture.server.admin.addDevice(name: "phone", folders: [Fixture.folder])
                // Two devices of one name exist only in databases from before v8-unique-device-names.
                try await (try fixture.pool).write { db in
                    try db.execute(sql: "DROP TRIGGER devices_unique_name_insert")
                    try db.execute(sql: "INSERT INTO devices (id, name, secret_hash, created_at) VALUES ('0123456789abcdef', 'phone', 'h', 0)")
                }
                await #expect(throws: APIError.self) { try await fixture.server.admin.revokeDevice("phone") }
                await #expect(throws: APIError.self) { try await fixture.server.admin.revokeDevice("no-such-device") }
                let token = try await client.token(other)
                try await fixture.server.admin.revokeDevice("laptop")
                #expect(try await client.changes(token: token).status == .ok)
                try await fixture.server.admin.revokeDevice(String(other.prefix(16)))
                #expect(try await client.changes(token: token).status == .unauthorized)
            }
        }
    }

    @Test func aGrantRemovedOrAddedAppliesToTheNextRequest() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                #expect(try await client.changes(token: token, folder: Fixture.privateFolder).status == .forbidden)
                try await fixture.server.admin.grant(device: fixture.deviceID, folder: Fixture.privateFolder)
                #expect(try await client.changes(token: token, folder: Fixture.privateFolder).status == .ok)
            }
        }
    }
}
