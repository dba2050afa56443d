import Foundation
import Logging
import Testing
import TestSupport

@testable import SyncServerKit

/// The metadata stores a shared suite runs against: SQLite in a temp dir, and a new database
/// in the test process's real PostgreSQL cluster (`PostgresServer`).
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }

    /// Opens `instances` stores on one new database (several servers sharing it), runs
    /// `body` with them, and closes them.
    func with(
        instances: Int = 1, _ body: ([any MetadataBackend]) async throws -> Void
    ) async throws {
        switch self {
        case .sqlite:
            let tmp = try TemporaryDirectory("metadata")
            defer { tmp.remove() }
            let stores = try (0..<instances).map { _ in try MetadataStore(path: tmp.path + "/metadata.sqlite") }
            try await body(stores)
        case .postgres:
            let server = try PostgresServer.shared()
            let location = try await PostgresLocation(url: try server.database("metadata") + "?sslmode=disable")
            var stores: [PostgresMetadataStore] = []
            do {
                for _ in 0..<instances {
                    stores.append(try await PostgresMetadataStore.open(location, logger: { var logger = Logger(label: "test.postgres"); logger.logLevel = .warning; return logger }()))
                }
                try await body(stores)
            } catch {
                for store in stores { await store.shutdown() }
                throw error
            }
            for store in stores { await store.shutdown() }
        }
    }

    func with(_ body: (any MetadataBackend) async throws -> Void) async throws {
        try await with(instances: 1) { try await body($0[0]) }
    }
}

/// The chunk index that goes with a store (as `ServerSettings.openMetadata` pairs them).
func chunkIndex(of store: any MetadataBackend) throws -> any ChunkIndexBackend {
    if let sqlite = store as? MetadataStore { return ChunkIndex(pool: sqlite.pool) }
    if let postgres = store as? PostgresMetadataStore { return PostgresChunkIndex(store: postgres) }
    throw TestFailure("no chunk index for \(type(of: store))")
}
