import Foundation
import GRDB
import Testing

@testable import SyncServerKit

@Suite("Device names")
struct DeviceNameTests {
    @Test func aSecondDeviceOfTheSameNameIsRefusedWithASentence() async throws {
        try await Fixture.with { fixture in
            let error = await #expect(throws: APIError.self) {
                _ = try await fixture.server.admin.addDevice(name: "laptop", folders: [Fixture.folder])
            }
            #expect(error?.code == .alreadyExists)
            #expect(error?.message.contains("a device named 'laptop' already exists") == true)
            let devices = try await fixture.server.admin.devices()
            #expect(devices.count == 1)
        }
    }

    @Test func renameChangesTheNameAndKeepsTheCredential() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let renamed = try await fixture.server.admin.renameDevice("laptop", to: "work-laptop")
                #expect(renamed.id == fixture.deviceID)
                #expect(try await fixture.server.admin.devices().map(\.name) == ["work-laptop"])
                let token = try await client.token(fixture.credential)
                #expect(try await client.changes(token: token).status == .ok)
                // The old name is free again.
                _ = try await fixture.server.admin.addDevice(name: "laptop", folders: [Fixture.folder])
            }
        }
    }

    @Test func renamingToANameInUseIsRefused() async throws {
        try await Fixture.with { fixture in
            _ = try await fixture.server.admin.addDevice(name: "phone", folders: [Fixture.folder])
            let error = await #expect(throws: APIError.self) {
                try await fixture.server.admin.renameDevice("laptop", to: "phone")
            }
            #expect(error?.code == .alreadyExists)
            #expect(try await fixture.server.admin.devices().map(\.name) == ["laptop", "phone"])
            // Renaming a device to its own name is not a clash.
            try await fixture.server.admin.renameDevice("phone", to: "phone")
        }
    }

    @Test func theDatabaseRefusesADuplicateNameToo() async throws {
        try await Fixture.with { fixture in
            let pool = (try fixture.pool)
            let error = #expect(throws: DatabaseError.self) {
                try pool.write { db in
                    try db.execute(sql: "INSERT INTO devices (id, name, secret_hash, created_at) VALUES ('0123456789abcdef', 'laptop', 'h', 0)")
                }
            }
            #expect(error?.message == "device name already in use")
        }
    }
}
