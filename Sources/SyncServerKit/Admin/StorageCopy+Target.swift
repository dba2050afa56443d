import Foundation
import Logging

extension StorageCopy {
    /// Where `storage copy` puts the metadata, and how it marks a copy under way: a SQLite file
    /// in the new data directory (marked by a `copy-in-progress` file beside it), or a
    /// PostgreSQL database (marked by its `storage_copy` row). A target that holds a server's
    /// data and no such mark is refused; a server does not start on a marked one.
    enum MetadataTarget {
        case sqlite(ServerSettings)
        case postgres(PostgresMetadataStore)

        static func open(_ settings: ServerSettings, logger: Logger) async throws -> MetadataTarget {
            switch settings.metadata {
            case .sqlite:
                return .sqlite(settings)
            case .postgres(let location):
                return .postgres(try await PostgresMetadataStore.open(location, logger: logger))
            }
        }

        /// Refuses a target in use, else marks the copy as under way.
        func begin(from source: String) async throws {
            switch self {
            case .sqlite(let settings):
                let marker = markerPath(settings)
                if access(settings.metadataPath, F_OK) == 0 && access(marker, F_OK) != 0 {
                    throw APIError.invalidArgument(
                        "\(settings.metadataPath) already exists: storage copy fills a new data directory only (this one holds a server's data)")
                }
                do {
                    try Data(source.utf8).write(to: URL(fileURLWithPath: marker))
                } catch {
                    throw APIError.internalError("cannot write \(marker): \(error)", cause: error)
                }
            case .postgres(let store):
                try await store.beginCopy(from: source)
            }
        }

        /// The whole metadata, replacing what an interrupted copy left.
        func copy(_ metadata: MetadataStore) async throws {
            switch self {
            case .sqlite(let settings):
                try StorageCopy.copyMetadata(metadata, to: settings.metadataPath)
            case .postgres(let store):
                _ = try await PostgresImport(source: metadata, target: store).run()
            }
        }

        /// Every pack is where it belongs: the mark goes (and the database records where the
        /// packs are, so that a server configured with another place is refused).
        func end(packLocation: String) async throws {
            switch self {
            case .sqlite(let settings):
                let marker = markerPath(settings)
                guard unlink(marker) == 0 else { throw StoreIOError(operation: "unlink", path: marker, code: errno).apiError }
            case .postgres(let store):
                try await store.endCopy(packLocation: packLocation)
            }
        }

        func close() async {
            if case .postgres(let store) = self { await store.shutdown() }
        }

        private func markerPath(_ settings: ServerSettings) -> String { StorageCopy.markerPath(settings) }
    }

    static func markerPath(_ settings: ServerSettings) -> String { settings.dataDir + "/copy-in-progress" }

    /// Refuses to use a SQLite data directory a copy has not finished filling: its packs are
    /// not all there. (On PostgreSQL the chunk store's start refuses it, under lock, when it
    /// records where the packs are: `PostgresChunkIndex.claimPacks`.)
    static func refuseUnfinished(_ settings: ServerSettings) throws {
        guard settings.metadata == .sqlite, access(markerPath(settings), F_OK) == 0 else { return }
        let source: String
        do {
            source = try String(contentsOfFile: markerPath(settings), encoding: .utf8)
        } catch {
            source = "another data directory (\(markerPath(settings)) cannot be read: \(error))"
        }
        throw unfinished(from: source)
    }

    static func unfinished(from source: String) -> APIError {
        APIError.invalidArgument(
            "a `sync-server storage copy` from \(source) into this server's storage has not finished: run it again to finish it "
                + "(it goes on where it stopped), then start the server")
    }
}
