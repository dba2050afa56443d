import Foundation
import GRDB
import Testing

@testable import SyncServerKit

@Suite("Metadata storage")
struct MigrationTests {
    @Test func freshDatabaseIsMigrated() async throws {
        let dir = try TemporaryDirectory.make()
        defer { TemporaryDirectory.remove(dir) }
        let store = try MetadataStore(path: dir + "/metadata.sqlite")
        #expect(try store.appliedMigrations() == ["v1-initial", "v2-moves", "v3-device-revocation"])
        let tables = try await store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        for table in ["devices", "entries", "folders", "grants", "versions"] {
            #expect(tables.contains(table))
        }
        let journal = try await store.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
    }

    @Test func reopeningAMigratedDatabaseKeepsItsData() async throws {
        let dir = try TemporaryDirectory.make()
        defer { TemporaryDirectory.remove(dir) }
        do {
            let first = ServerAdmin(metadata: try MetadataStore(path: dir + "/metadata.sqlite"))
            try await first.addFolder("kept")
        }
        let reopened = try MetadataStore(path: dir + "/metadata.sqlite")
        #expect(try reopened.appliedMigrations() == Migrations.names)
        #expect(try await reopened.folderIDs() == ["kept"])
        #expect(try await reopened.folderRev("kept") == 0)
    }

    @Test func pruningKeepsCurrentVersions() async throws {
        try await Fixture.with { fixture in
            let store = fixture.server.metadata
            _ = try await store.commit(folder: Fixture.folder, device: "d", changes: [Make.directory("a")])
            _ = try await store.commit(folder: Fixture.folder, device: "d", changes: [Make.tombstone("a", base: 1)])
            _ = try await store.commit(folder: Fixture.folder, device: "d", changes: [Make.directory("b")])
            let admin = fixture.server.admin
            #expect(try await admin.pruneHistory(retention: .seconds(3600)) == 0)
            let removed = try await admin.pruneHistory(retention: .seconds(3600), now: Date().addingTimeInterval(7200))
            #expect(removed == 1)
            #expect(try await store.history(folder: Fixture.folder, path: "a").map(\.rev) == [2])
            #expect(try await store.history(folder: Fixture.folder, path: "b").map(\.rev) == [3])
        }
    }
}
