import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import SyncClient
import SyncConfig
import SyncCore
import ServiceSupport

/// Builds the daemon's parts from a config and runs them as services until
/// SIGTERM/SIGINT. Pending work stays in the journal across stops.
public enum Daemon {
    public static let version = ProductVersion.current

    /// `logLevel`: the process's level, which a reload sets from the config's `log_level`
    /// (nil: fixed by the command line).
    /// `recentLog`: where the log handler keeps recent events (`syncctl log`); nil: none kept.
    public static func run(
        config: DaemonConfig, logLevel: ReloadableLogLevel? = nil, recentLog: RecentLog? = nil, logger: Logger
    ) async throws {
        raiseOpenFileLimit(logger: logger)
        let credential = try Startup.readCredential(config.server.credentialFile)
        try Startup.makePrivateDirectory(config.daemon.stateDir)
        let stateLock = try StateLock.acquire(stateDir: config.daemon.stateDir)
        defer { withExtendedLifetime(stateLock) {} }
        let index: IndexStore
        do {
            index = try IndexStore(path: config.daemon.stateDir + "/index.sqlite")
            try index.journal.resumeInterrupted()
        } catch {
            throw DaemonError(.index, "cannot open the index in \(config.daemon.stateDir)", underlying: error)
        }
        let http: HTTPClient
        do {
            http = try config.server.caFile.map { caFile throws(RemoteError) in try RemoteClient.makeHTTPClient(trusting: caFile) }
                ?? RemoteClient.sharedHTTP
        } catch {
            throw DaemonError(.caFile, error.message, path: config.server.caFile, underlying: error)
        }
        // A client of our own (ca_file) is shut down on every way out (it must be).
        do {
            try await serve(
                config: config, index: index, credential: credential, http: http, logLevel: logLevel, recentLog: recentLog,
                logger: logger)
        } catch {
            if http !== RemoteClient.sharedHTTP {
                do { try await http.shutdown() } catch { logger.debug("HTTP client shutdown", metadata: ["error": "\(error)"]) }
            }
            throw error
        }
        if http !== RemoteClient.sharedHTTP { try await http.shutdown() }
        logger.info("syncd stopped")
    }

    /// Authenticates, starts the folders and the control socket, and runs until SIGTERM/SIGINT;
    /// SIGHUP reloads the config (`DaemonReloader`).
    static func serve(
        config: DaemonConfig, index: IndexStore, credential: String, http: HTTPClient, logLevel: ReloadableLogLevel?,
        recentLog: RecentLog?, logger: Logger
    ) async throws {
        let bandwidth = BandwidthLimits(upload: config.transfer.uploadLimit.bytes, download: config.transfer.downloadLimit.bytes)
        let remote = RemoteClient(
            baseURL: config.server.url, credential: credential, http: http, bandwidth: bandwidth, logger: logger)
        do {
            try await remote.authenticate()
        } catch where error.kind == .unauthorized {
            throw DaemonError(.credentialRejected, "the server at \(config.server.url) rejected the device credential", underlying: error)
        } catch {
            logger.warning("server not reachable yet; changes are journaled and sent when it is", metadata: ["error": "\(error)"])
        }
        let metrics = DaemonMetrics()
        let engines = config.folders.map { folder in
            makeEngine(folder: folder, config: config, index: index, remote: remote, metrics: metrics, logger: logger)
        }
        try Startup.claimSocket(config.daemon.controlSocket)
        // Under systemd (Type=notify): READY=1 once syncctl can reach us, watchdog pings,
        // STOPPING=1 when shutdown begins.
        let systemd = SystemdNotifier(environment: ProcessInfo.processInfo.environment)
        let state = DaemonState(engines: engines, version: version, recentLog: recentLog)
        let folders = FolderSupervisor(engines: engines, state: state, logger: logger)
        let reloader = DaemonReloader(
            config: config, folders: folders, bandwidth: bandwidth, logLevel: logLevel,
            makeEngine: { folder, config in
                makeEngine(folder: folder, config: config, index: index, remote: remote, metrics: metrics, logger: logger)
            },
            logger: logger)
        // Trapped before the control socket answers: once syncctl (or systemd) sees us
        // ready, SIGHUP reloads instead of ending the process.
        let reload = await ReloadService.trapping(notifier: systemd) { await reloader.reload() }
        let control = ControlServer.application(
            socketPath: config.daemon.controlSocket, daemon: state, logger: logger,
            onReady: { systemd?.notify("READY=1\nSTATUS=syncing \(engines.count) folder(s)") })
        var services: [any Service] = [control, folders, reload]
        if let listen = config.daemon.metricsListen {
            services.append(MetricsServer(listen: listen, metrics: metrics, daemon: state, logger: logger))
        }
        if let systemd { services.append(SystemdWatchdog(notifier: systemd)) }
        let group = ServiceGroup(
            configuration: .stoppingWithin(services: services, signals: [.sigterm, .sigint], logger: logger))
        logger.info("syncd started", metadata: ["version": "\(version)", "folders": "\(engines.count)"])
        try await group.run()
    }

    static func makeEngine(
        folder: DaemonConfig.Folder, config: DaemonConfig, index: IndexStore, remote: RemoteClient,
        metrics: DaemonMetrics, logger: Logger
    ) -> FolderEngine {
        var folderLogger = logger
        folderLogger[metadataKey: "folder"] = "\(folder.id)"
        let progress = TransferProgress()
        let openWrites = OpenWrites()
        // One identity for both directions: every read for an upload and every remote write
        // first checks that the root is still the directory adopted at the first scan.
        let pin = RootPin()
        let uploader = Uploader(
            folder: folder.id, index: index, remote: remote, preparer: Preparer(folder: FolderRoot(folder.path, pin: pin)),
            progress: progress,
            openWrites: openWrites, maxConcurrent: config.transfer.maxConcurrent, logger: folderLogger, metrics: metrics)
        let queue = TransferQueue(
            folder: folder.id, index: index, uploader: uploader,
            deleteGuard: DeleteGuard(maxFraction: folder.maxDeleteFraction, maxCount: folder.maxDeleteCount), logger: folderLogger)
        // Never sync our own state if someone put it inside a folder.
        let excluded = [config.daemon.stateDir].compactMap { dir -> String? in
            dir.hasPrefix(folder.path + "/") ? String(dir.dropFirst(folder.path.count + 1)) : nil
        }
        let trash = Trash(root: config.daemon.stateDir + "/trash/" + folder.id)
        let materializer = Materializer(root: folder.path, trashRoot: trash.root, pin: pin)
        var applier = RemoteApplier(
            folder: folder.id, index: index, remote: remote, materializer: materializer, progress: progress,
            logger: folderLogger, metrics: metrics)
        applier.fetchConcurrency = config.transfer.maxConcurrent
        return FolderEngine(
            config: folder, index: index, queue: queue, progress: progress, remote: remote, applier: applier,
            excluded: excluded, trash: trash, trashRetention: config.daemon.trashRetention, openWrites: openWrites,
            metrics: metrics, logger: folderLogger)
    }
}
