import Foundation
import GRDB
import Testing
import TestSupport

@testable import SyncServerKit

@Suite("Metadata storage")
struct MigrationTests {
    @Test func freshDatabaseIsMigrated() async throws {
        let tmp = try TemporaryDirectory("server-metadata")
        defer { tmp.remove() }
        let dir = tmp.path
        let store = try MetadataStore(path: dir + "/metadata.sqlite")
        #expect(try store.appliedMigrations() == [
            "v1-initial", "v2-moves", "v3-moves-moved-to", "v4-device-revocation", "v5-commit-replies", "v6-chunk-index",
            "v7-chunk-gc", "v8-unique-device-names", "v9-device-last-seen", "v10-chunk-checksums",
        ])
        let tables = try await store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        for table in ["devices", "entries", "folders", "grants", "versions"] {
            #expect(tables.contains(table))
        }
        let journal = try await store.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
        // A commit is acknowledged only once it is on disk (FULL = 2), also on power loss.
        #expect(try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
        #expect(try await store.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
    }

    @Test func reopeningAMigratedDatabaseKeepsItsData() async throws {
        let tmp = try TemporaryDirectory("server-metadata")
        defer { tmp.remove() }
        let dir = tmp.path
        do {
            let first = ServerAdmin(metadata: try MetadataStore(path: dir + "/metadata.sqlite"))
            try await first.addFolder("kept")
        }
        let reopened = try MetadataStore(path: dir + "/metadata.sqlite")
        #expect(try reopened.appliedMigrations() == Migrations.names)
        #expect(try await reopened.accounts.folderIDs() == ["kept"])
        #expect(try await reopened.folderRev("kept") == 0)
    }

    /// The schemas shipped so far, exactly as each was created: v1 alone, v2 as first
    /// shipped (moved_from only), and v2 as it was briefly edited (moved_from and moved_to).
    static let earlierSchemas: [(name: String, sql: [String], applied: [String])] = [
        ("v1", [Migrations.v1Initial], ["v1-initial"]),
        ("v2", [Migrations.v1Initial, Migrations.v2Moves], ["v1-initial", "v2-moves"]),
        (
            "v2-edited",
            [Migrations.v1Initial, Migrations.v2Moves, "ALTER TABLE entries ADD COLUMN moved_to TEXT; ALTER TABLE versions ADD COLUMN moved_to TEXT;"],
            ["v1-initial", "v2-moves"]
        ),
    ]

    @Test(arguments: earlierSchemas.map(\.name))
    func databasesOfEveryEarlierSchemaUpgradeAndKeepTheirData(schema: String) async throws {
        let old = try #require(Self.earlierSchemas.first { $0.name == schema })
        let tmp = try TemporaryDirectory("server-metadata")
        defer { tmp.remove() }
        let dir = tmp.path
        let path = dir + "/metadata.sqlite"
        do {
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                for sql in old.sql { try db.execute(sql: sql) }
                try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                for name in old.applied { try db.execute(sql: "INSERT INTO grdb_migrations VALUES (?)", arguments: [name]) }
                try db.execute(sql: "INSERT INTO folders (id, rev, created_at) VALUES ('docs', 1, 0)")
                try db.execute(sql: """
                    INSERT INTO entries (folder_id, path, kind, size, mtime_ns, mode, chunks, content_hash, deleted, rev)
                    VALUES ('docs', 'kept.txt', 'file', 0, 0, 420, '', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 0, 1)
                    """)
                try db.execute(sql: "INSERT INTO devices (id, name, secret_hash, created_at) VALUES ('0123456789abcdef', 'old', 'h', 0)")
            }
        }
        let store = try MetadataStore(path: path)
        #expect(try store.appliedMigrations() == Migrations.names)
        let entry = try await store.changes(folder: "docs", since: 0, limit: 10)?.entries.first
        #expect(entry?.path == "kept.txt")
        #expect(try await store.accounts.device(id: "0123456789abcdef")?.revokedAt == nil)
        let columns = try await store.pool.read { db in try db.columns(in: "entries").map(\.name) }
        #expect(columns.contains("moved_from") && columns.contains("moved_to"))
    }

    @Test func chunkRowsOfAVersion6DatabaseStartTheirGracePeriodAtTheUpgrade() async throws {
        let tmp = try TemporaryDirectory("server-metadata")
        defer { tmp.remove() }
        let path = tmp.path + "/metadata.sqlite"
        do {
            let queue = try DatabaseQueue(path: path)
            try Migrations.migrator.migrate(queue, upTo: "v6-chunk-index")
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO packs (id, durable_length, sealed) VALUES (1, 1040, 1)")
                try db.execute(sql: "INSERT INTO chunk_index (hash, pack_id, offset, length) VALUES ('ab', 1, 40, 1000)")
            }
        }
        let before = MetadataStore.nowSeconds()
        let store = try MetadataStore(path: path)
        let row = try await store.pool.read { db -> (touched: Int64, retired: Bool)? in
            try Row.fetchOne(db, sql: "SELECT c.touched_at, p.retired FROM chunk_index c JOIN packs p ON p.id = c.pack_id")
                .map { ($0[0], $0[1]) }
        }
        let touched = try #require(row?.touched)
        #expect(touched >= before && touched <= MetadataStore.nowSeconds())
        #expect(row?.retired == false)
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
