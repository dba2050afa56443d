import Foundation
import Logging
import ServiceSupport
import SyncConfig
import SyncServerKit

/// A SIGHUP reload of `sync-server serve`: reads the config file again; retention,
/// compact_below and log_level take effect, what is read only at start is logged as
/// needing a restart. A file that cannot be read or is not valid is logged (file and
/// problem named) and the config in force is kept.
actor ServerReloader {
    private var config: ServerConfig
    private let server: SyncServer
    private let level: ReloadableLogLevel
    private let logger: Logger
    private let environment: [String: String]

    init(
        config: ServerConfig, server: SyncServer, level: ReloadableLogLevel, logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.config = config
        self.server = server
        self.level = level
        self.logger = logger
        self.environment = environment
    }

    /// LOG_LEVEL wins over the config's `log_level`; info when neither is set.
    static func level(config: String?, environment: [String: String]) -> Logger.Level {
        environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) }
            ?? config.flatMap { Logger.Level(rawValue: $0) } ?? .info
    }

    func reload() async {
        logger.info("SIGHUP: reloading \(config.file)")
        let new: ServerConfig
        do {
            new = try ServerConfig.load(path: config.file, environment: environment)
            _ = try ConfigOptions.settings(from: new)
        } catch {
            logger.error("reload failed: \(error); the config in force is kept, fix the file and send SIGHUP again")
            return
        }
        let change = ServerConfigChange(from: config, to: new)
        for key in change.needsRestart {
            logger.warning("\(config.file): \(key) changed; this needs a restart of sync-server to take effect")
        }
        var applied = new
        applied.host = config.host
        applied.port = config.port
        applied.dataDir = config.dataDir
        applied.tls = config.tls
        applied.metadata = config.metadata
        applied.blobs = config.blobs
        if change.retention != nil || change.compactBelow != nil {
            server.apply(retention: new.retention, compactBelow: new.compactBelow)
        }
        config = applied
        logger.info("reloaded \(config.file): \(change.summary)")
        // Last, so that the line above shows even when the new level is quieter.
        if change.logLevel != nil {
            if environment["LOG_LEVEL"] != nil {
                logger.notice("\(config.file): log_level changed, but the LOG_LEVEL environment variable decides it")
            } else {
                level.level = Self.level(config: new.logLevel, environment: environment)
            }
        }
    }
}
