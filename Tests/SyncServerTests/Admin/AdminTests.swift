import Foundation
import GRDB
import Testing

@testable import SyncServerKit

@Suite("Administration")
struct AdminTests {
    @Test func addingAFolderTwiceFails() async throws {
        try await Fixture.with { fixture in
            let error = await #expect(throws: APIError.self) { try await fixture.server.admin.addFolder(Fixture.folder) }
            #expect(error?.code == .alreadyExists)
            #expect(error?.message.contains("already exists") == true)
        }
    }

    @Test(arguments: ["", "..", "a/b", "with space", String(repeating: "x", count: 65), "ü"])
    func invalidFolderIDsAreRejected(id: String) async throws {
        try await Fixture.with { fixture in
            let error = await #expect(throws: APIError.self) { try await fixture.server.admin.addFolder(id) }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test func addingADeviceForAMissingFolderFails() async throws {
        try await Fixture.with { fixture in
            let error = await #expect(throws: APIError.self) {
                _ = try await fixture.server.admin.addDevice(name: "phone", folders: [Fixture.folder, "nope"])
            }
            #expect(error?.code == .notFound)
            #expect(error?.message.contains("nope") == true)
            // Nothing was half-created.
            let devices = try await (try fixture.pool).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM devices")
            }
            #expect(devices == 1)
        }
    }

    @Test func credentialIsStoredOnlyHashed() async throws {
        try await Fixture.with { fixture in
            let credential = try #require(Credential(parsing: fixture.credential))
            let device = try #require(try await fixture.server.metadata.accounts.device(id: credential.deviceID))
            #expect(device.secretHash == Credential.hash(secret: credential.secret))
            #expect(device.secretHash != credential.secret)
            #expect(device.folders == [Fixture.folder])
        }
    }

    @Test func adminWorksOnADataDirWhileAServerHasItOpen() async throws {
        try await Fixture.with { fixture in
            let second = try ServerAdmin(dataDir: fixture.dataDir)
            try await second.addFolder("added-later")
            #expect(try await fixture.server.admin.folders() == ["added-later", Fixture.folder, Fixture.privateFolder])
        }
    }
}
