import Foundation
import GRDB
import Logging
import PostgresNIO
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// `PostgresImport` (`storage copy` into PostgreSQL, issue 10 point 5): every row of a SQLite
/// metadata database lands in a real PostgreSQL database as it was, and the stores then answer
/// alike.
@Suite("SQLite metadata copied into PostgreSQL", .serialized)
struct PostgresImportTests {
    static let logger = { var logger = Logger(label: "test.import"); logger.logLevel = .warning; return logger }()

    /// A SQLite store with something in every table: two folders, a revoked device, moves, a
    /// symlink, deletions, a remembered commit reply, packs and chunk rows; awkward paths.
    static func filledStore(_ path: String) async throws -> MetadataStore {
        let store = try MetadataStore(path: path)
        try await store.accounts.addFolder("docs")
        try await store.accounts.addFolder("photos")
        try await store.accounts.addDevice(id: "dev-a", name: "laptop", secretHash: "h1", folders: ["docs", "photos"])
        try await store.accounts.addDevice(id: "dev-b", name: "phone", secretHash: "h2", folders: ["docs"])
        try await store.accounts.touch(device: "dev-a", at: 1_700_000_000)
        try await store.accounts.revokeDevice(id: "dev-b", at: 1_700_000_100)
        _ = try await store.commit(
            folder: "docs", device: "dev-a",
            changes: [
                Make.directory("a"), Make.file("a/x.txt", chunks: [Make.bytes("x"), Make.bytes("y")]),
                Make.file("tab\there 'quoted' é.txt", chunks: [Make.bytes("t")]), Make.symlink("link", target: "a/x.txt"),
                Make.file("empty", chunks: []),
            ],
            idempotency: (id: "commit-1", requestHash: "rh"), checkingChunksOf: nil)
        _ = try await store.commit(
            folder: "docs", device: "dev-b", changes: [.move(from: "a", to: "b", kind: .directory, baseRev: 1)])
        _ = try await store.commit(folder: "docs", device: "dev-a", changes: [Make.tombstone("empty", base: 5)])
        _ = try await store.commit(folder: "photos", device: "dev-a", changes: [Make.file("p.jpg", chunks: [Make.bytes("p")])])
        try await store.pool.write { db in
            try db.execute(sql: "INSERT INTO packs (id, durable_length, sealed, retired) VALUES (1, 4096, 1, 0), (2, 100, 0, 0), (3, 0, 1, 1)")
            for (index, text) in ["x", "y", "t", "p"].enumerated() {
                try db.execute(
                    sql: "INSERT INTO chunk_index (hash, pack_id, offset, length, touched_at) VALUES (?, ?, ?, 1, ?)",
                    arguments: [Make.hash(Make.bytes(text)), index < 3 ? 1 : 2, 40 + 41 * index, 1_700_000_000 + index])
            }
        }
        return store
    }

    @Test func everyRowArrivesAsItWasAndACopyRunAgainReplacesIt() async throws {
        let tmp = try TemporaryDirectory("import")
        defer { tmp.remove() }
        let source = try await Self.filledStore(tmp.path + "/metadata.sqlite")
        let location = try await PostgresLocation(url: try PostgresServer.shared().database("import") + "?sslmode=disable")
        let target = try await PostgresMetadataStore.open(location, logger: Self.logger)
        do {
            // Small batches: every table takes several.
            let counts = try await PostgresImport(source: source, target: target, batchSize: 2).run()
            #expect(counts.rows["versions"] == 11)
            #expect(counts.rows["chunk_index"] == 4)
            for table in ImportedTable.all {
                #expect(try await Self.dump(table, of: target) == Self.dump(table, of: source), "\(table.name)")
            }
            // Read through the stores' own operations too.
            for folder in ["docs", "photos"] {
                let expected = try #require(try await source.changes(folder: folder, since: 0, limit: 100))
                let copied = try #require(try await target.changes(folder: folder, since: 0, limit: 100))
                #expect(copied.entries == expected.entries && copied.head == expected.head)
            }
            #expect(try await target.history(folder: "docs", path: "b/x.txt") == source.history(folder: "docs", path: "b/x.txt"))
            #expect(try await target.accounts.devices() == source.accounts.devices())
            #expect(try await target.accounts.activeGrants(device: "dev-a") == ["docs", "photos"])

            // Run again after the source changed: replaced, not added to.
            _ = try await source.commit(folder: "photos", device: "dev-a", changes: [Make.file("q.jpg", chunks: [Make.bytes("q")])])
            let again = try await PostgresImport(source: source, target: target).run()
            #expect(again.rows["versions"] == 12)
            for table in ImportedTable.all {
                #expect(try await Self.dump(table, of: target) == Self.dump(table, of: source), "\(table.name)")
            }
            // The copy goes on where SQLite stopped: gap-free revisions.
            let next = try #require(try await target.commit(folder: "photos", device: "dev-a", changes: [Make.file("r.jpg", chunks: [])]))
            #expect(next.folderRev == 3)
        } catch {
            await target.shutdown()
            throw error
        }
        await target.shutdown()
    }

    @Test func theCopyCoversEveryColumnOfEveryTable() throws {
        let tmp = try TemporaryDirectory("import-schema")
        defer { tmp.remove() }
        let store = try MetadataStore(path: tmp.path + "/metadata.sqlite")
        let schema = try store.pool.read { db in
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'grdb_%' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            return try tables.map { table in (table, try db.columns(in: table).map(\.name)) }
        }
        #expect(schema.map(\.0) == ImportedTable.all.map(\.name).sorted(), "a new table needs a place in ImportedTable.all")
        for (table, columns) in schema {
            let imported = try #require(ImportedTable.all.first { $0.name == table })
            #expect(Set(imported.columns.map(\.name)) == Set(columns), "\(table): a new column needs a place in ImportedTable.all")
        }
    }

    @Test func twoDevicesOfOneNameAreSaidBeforeAnythingIsWritten() async throws {
        let tmp = try TemporaryDirectory("import-names")
        defer { tmp.remove() }
        let source = try MetadataStore(path: tmp.path + "/metadata.sqlite")
        try await source.accounts.addDevice(id: "dev-1", name: "laptop", secretHash: "h", folders: [])
        // As a database made before names were unique (v8) may hold them.
        try await source.pool.write { db in
            try db.execute(sql: "DROP TRIGGER devices_unique_name_insert")
            try db.execute(sql: "INSERT INTO devices (id, name, secret_hash, created_at) VALUES ('dev-2', 'laptop', 'h', 0)")
        }
        let location = try await PostgresLocation(url: try PostgresServer.shared().database("import") + "?sslmode=disable")
        let target = try await PostgresMetadataStore.open(location, logger: Self.logger)
        defer { Task { await target.shutdown() } }
        do {
            _ = try await PostgresImport(source: source, target: target).run()
            Issue.record("the copy went through")
        } catch let error as APIError {
            #expect(error.message.contains("several devices are named laptop"), "\(error.message)")
            #expect(error.message.contains("sync-server device rename"), "\(error.message)")
        }
        #expect(try await target.accounts.devices().isEmpty)
    }

    /// Every row of `table`, ordered by its key, each value as text ("NULL" for NULL, booleans 0/1).
    static func dump(_ table: ImportedTable, of store: MetadataStore) throws -> [String] {
        let columns = table.columns.map { "COALESCE(CAST(\"\($0.name)\" AS TEXT), 'NULL')" }.joined(separator: " || '|' || ")
        return try store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT \(columns) FROM \(table.name) ORDER BY \(table.key.joined(separator: ", "))")
        }
    }

    static func dump(_ table: ImportedTable, of store: PostgresMetadataStore) async throws -> [String] {
        let columns = table.columns.map { column -> String in
            switch column {
            case .boolean(let name): return "CAST(\"\(name)\" AS INTEGER)::text"
            default: return "COALESCE(\"\(column.name)\"::text, 'NULL')"
            }
        }.joined(separator: " || '|' || ")
        var rows: [String] = []
        for try await row in try await store.client.query(
            PostgresQuery(unsafeSQL: "SELECT \(columns) FROM \(table.name) ORDER BY \(table.key.joined(separator: ", "))"),
            logger: logger
        ).decode(String.self) { rows.append(row) }
        return rows
    }
}
