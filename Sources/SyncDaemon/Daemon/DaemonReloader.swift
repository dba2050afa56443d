import Foundation
import Logging
import ServiceSupport
import SyncClient
import SyncConfig

/// Performs a SIGHUP reload of syncd: reads the config file again and applies the
/// `ConfigChange` from the config in force. A file that cannot be read or is not valid is
/// logged (file and problem named) and the config in force is kept.
actor DaemonReloader {
    private var config: DaemonConfig
    private let folders: FolderSupervisor
    private let bandwidth: BandwidthLimits
    /// nil when `--log-level` fixed the level for the process's life.
    private let logLevel: ReloadableLogLevel?
    private let makeEngine: @Sendable (DaemonConfig.Folder, DaemonConfig) -> FolderEngine
    private let logger: Logger
    private let environment: [String: String]

    init(
        config: DaemonConfig, folders: FolderSupervisor, bandwidth: BandwidthLimits, logLevel: ReloadableLogLevel?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        makeEngine: @escaping @Sendable (DaemonConfig.Folder, DaemonConfig) -> FolderEngine, logger: Logger
    ) {
        self.config = config
        self.folders = folders
        self.bandwidth = bandwidth
        self.logLevel = logLevel
        self.environment = environment
        self.makeEngine = makeEngine
        self.logger = logger
    }

    func reload() async {
        logger.info("SIGHUP: reloading \(config.file)")
        let new: DaemonConfig
        do {
            new = try DaemonConfig.load(path: config.file, environment: environment)
        } catch {
            logger.error("reload failed: \(error); the config in force is kept, fix the file and send SIGHUP again")
            return
        }
        let change = ConfigChange(from: config, to: new)
        for key in change.needsRestart {
            logger.warning("\(config.file): \(key) changed; this needs a restart of syncd to take effect")
        }
        if let limits = change.limits {
            await bandwidth.set(upload: limits.upload, download: limits.download)
        }
        // A folder taken out, or moved elsewhere, gives up its big downloads cut short: their
        // staging files would lie in a folder nobody syncs. One restarted in place keeps them.
        let moved = change.restarted.filter { folder in config.folders.first { $0.id == folder.id }?.path != folder.path }
        let discarding = Set(change.removed + moved.map(\.id))
        for id in change.removed + change.restarted.map(\.id) {
            await folders.stop(id, discardingPartialDownloads: discarding.contains(id))
        }
        for folder in change.added + change.restarted {
            await folders.start(makeEngine(folder, change.effective))
        }
        let engines = await folders.engines
        for folder in change.ignoreChanged {
            if let engine = engines.first(where: { $0.id == folder.id }) { await engine.updateIgnore(folder.ignore) }
        }
        config = change.effective
        logger.info("reloaded \(config.file): \(change.summary)")
        // Last, so that the line above shows even when the new level is quieter.
        if let level = change.logLevel {
            if let logLevel, let parsed = Logger.Level(rawValue: level) {
                logLevel.level = parsed
            } else {
                logger.notice("\(config.file): log_level changed, but --log-level on the command line decides it")
            }
        }
    }
}
