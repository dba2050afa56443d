import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import ServiceSupport

/// Where the server is listening once bound (`port` is the real one, also when 0 was asked for).
public struct ListeningAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
    /// `host:port`, with an IPv6 host in brackets (`[::1]:8417`).
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The sync server: opens its stores under `settings.dataDir` (creating and
/// migrating them), and serves the `/v1` protocol.
///
/// ```swift
/// let server = try SyncServer(settings: .init(port: 0, dataDir: dir), logger: logger)
/// try await server.admin.addFolder("docs")
/// let credential = try await server.admin.addDevice(name: "laptop", folders: ["docs"])
/// try await server.run { address in print("listening on \(address)") }   // until SIGTERM/SIGINT or cancellation
/// ```
public final class SyncServer: Sendable {
    public let settings: ServerSettings
    public let admin: ServerAdmin
    let metadata: any MetadataBackend
    let opened: OpenedMetadata
    let chunks: ChunkStore
    let tokens: TokenStore
    let notifier: ChangeNotifier
    let inFlight: DeviceRequestLimiter
    let logger: Logger
    /// Plain HTTP/1.1, or HTTP/1.1 over TLS when the settings name a certificate.
    let httpServer: HTTPServerBuilder
    /// Retention and compaction as in force now (`settings` holds those of the start).
    let storageSettings: RuntimeStorageSettings
    /// This server's Prometheus metrics (`GET /metrics`), in a registry of its own.
    public let metrics: ServerMetrics

    /// Opens the data directory and the metadata store, checks the chunk store (torn pack
    /// tails, legacy chunk files), and is ready to serve (`run`, `makeApplication`).
    public static func open(settings: ServerSettings, logger: Logger) async throws -> SyncServer {
        try DataDirectory.create(settings.dataDir)
        let httpServer = try makeHTTPServer(settings)
        let opened = try await settings.openMetadata(logger: logger)
        do {
            try StorageCopy.refuseUnfinished(settings)
            let chunks = try await settings.openChunkStore(index: opened.index, logger: logger)
            do {
                try await chunks.recover()
            } catch {
                throw APIError.internalError("cannot check the chunk store of \(settings.dataDir): \(error)", cause: error)
            }
            return SyncServer(settings: settings, opened: opened, chunks: chunks, httpServer: httpServer, logger: logger)
        } catch {
            await opened.close()
            throw error
        }
    }

    private init(settings: ServerSettings, opened: OpenedMetadata, chunks: ChunkStore, httpServer: HTTPServerBuilder, logger: Logger) {
        self.settings = settings
        self.logger = logger
        self.opened = opened
        self.metadata = opened.store
        self.chunks = chunks
        self.admin = ServerAdmin(opened: opened)
        self.tokens = TokenStore(lifetime: settings.tokenLifetime)
        self.notifier = ChangeNotifier()
        self.inFlight = DeviceRequestLimiter(limit: settings.maxRequestsPerDevice)
        self.httpServer = httpServer
        self.storageSettings = RuntimeStorageSettings(retention: settings.retention, compactBelow: settings.compactBelow)
        self.metrics = ServerMetrics()
    }

    /// Closes the metadata store's connections (PostgreSQL); `run` does it when it ends.
    public func close() async { await opened.close() }

    public func apply(retention: Duration, compactBelow: Double) {
        storageSettings.set(.init(retention: retention, compactBelow: compactBelow))
    }

    /// The Hummingbird application (router, retention service), not yet running.
    /// Use it with HummingbirdTesting's `test(.router)`/`test(.live)`, or run it
    /// in your own `ServiceGroup`.
    public func makeApplication(
        onListening: @escaping @Sendable (ListeningAddress) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let host = settings.host
        let requestedPort = settings.port
        return Application(
            router: ServerApplication(server: self).buildRouter(),
            server: httpServer,
            configuration: ApplicationConfiguration(address: .hostname(host, port: requestedPort)),
            services: [
                RetentionService(server: self, logger: logger)
            ],
            onServerRunning: { channel in
                await onListening(ListeningAddress(host: host, port: channel.localAddress?.port ?? requestedPort))
            },
            logger: logger)
    }

    /// Reclaims storage: prunes history, collects unreferenced chunks, compacts packs.
    var storageGC: StorageGC {
        let now = storageSettings.values
        return StorageGC(
            metadata: metadata, chunks: chunks, retention: now.retention, compactBelow: now.compactBelow, logger: logger)
    }

    /// Runs until SIGTERM/SIGINT (when `handleSignals`) or until the calling
    /// task is cancelled; shuts down gracefully (long-polls end at once). With
    /// `handleSignals`, SIGHUP runs `onReload` (which re-reads the config) instead of
    /// ending the process.
    public func run(
        handleSignals: Bool = true,
        onListening: @escaping @Sendable (ListeningAddress) async -> Void = { _ in },
        onReload: @escaping @Sendable () async -> Void = {}
    ) async throws {
        // Under systemd (Type=notify): READY=1 once the socket is bound, watchdog pings,
        // STOPPING=1 when shutdown begins.
        let systemd = SystemdNotifier(environment: ProcessInfo.processInfo.environment)
        do {
            try await chunks.recoverRemote()
        } catch {
            throw APIError.internalError("cannot check the packs in \(settings.blobs): \(error)", cause: error)
        }
        let application = makeApplication { address in
            systemd?.notify("READY=1\nSTATUS=listening on \(address)")
            await onListening(address)
        }
        var services: [any Service] = [application]
        if let postgres = opened.postgres {
            // Commits made through other instances wake this one's long-polls.
            services.append(PostgresCommitListener(store: postgres, notifier: notifier, logger: logger))
        }
        if handleSignals { services.append(await ReloadService.trapping(notifier: systemd, reload: onReload)) }
        if let systemd { services.append(SystemdWatchdog(notifier: systemd)) }
        let group = ServiceGroup(
            configuration: .stoppingWithin(services: services, signals: handleSignals ? [.sigterm, .sigint] : [], logger: logger))
        do {
            try await group.run()
        } catch {
            await close()
            throw error
        }
        await close()
    }
}
