import Foundation
import Logging

extension StorageGC {
    /// `sync-server storage gc`: one round on a data directory no server is using. Takes the
    /// data directory's lock (refused, naming the holder, while a server runs), checks the
    /// packs as a start does, runs the round, and seals the pack the copies went to.
    /// `now` is the time retention and the grace period are judged by (default: the server's clock).
    public static func runOffline(settings: ServerSettings, logger: Logger, now: Date? = nil) async throws -> Report {
        let lock = try DataDirectoryLock.acquire(dataDir: settings.dataDir, purpose: "storage gc")
        defer { withExtendedLifetime(lock) {} }
        if settings.metadata == .sqlite, access(settings.metadataPath, F_OK) != 0 {
            throw APIError.invalidArgument("\(settings.metadataPath) does not exist: is \(settings.dataDir) a server's data_dir?")
        }
        let opened = try await settings.openMetadata(logger: logger)
        do {
            let report = try await runOffline(settings: settings, opened: opened, logger: logger, now: now)
            await opened.close()
            return report
        } catch {
            await opened.close()
            throw error
        }
    }

    private static func runOffline(settings: ServerSettings, opened: OpenedMetadata, logger: Logger, now: Date?) async throws -> Report {
        try StorageCopy.refuseUnfinished(settings)
        let chunks = try await settings.openChunkStore(index: opened.index, logger: logger)
        do {
            try await chunks.recover()
            try await chunks.recoverRemote()
        } catch {
            throw APIError.internalError("cannot check the chunk store of \(settings.dataDir): \(error)", cause: error)
        }
        let gc = StorageGC(
            metadata: opened.store, chunks: chunks, retention: settings.retention, compactBelow: settings.compactBelow,
            logger: logger)
        guard let report = try await chunks.index.exclusively({ try await gc.run(now: now ?? ServerClock.now()) }) else {
            throw APIError.invalidArgument("another sync-server is running a storage round on this database; try again when it is done")
        }
        if let current = chunks.writer.currentPack, chunks.writer.seal(current) { try await chunks.seal([current]) }
        return report
    }
}
