import ArgumentParser
import Foundation
import Logging
import SyncConfig
import ServiceSupport
import SyncDaemon

@main
struct SyncdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "syncd",
        abstract: "Keeps the folders named in its config in two-way sync with a sync-server.",
        discussion: """
            Runs in the foreground until SIGTERM or SIGINT; pending work stays in the journal \
            under state_dir and resumes at the next start. SIGHUP reads the config again: folders \
            added or removed, log_level, upload_limit, download_limit and ignore patterns take effect \
            at once; a config with an error is reported and the one in force kept. Logs go to stderr. \
            Talk to it with `syncctl status`.
            """,
        version: Daemon.version)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Path of the syncd TOML config (see Config/syncd.toml). Default: $XDG_CONFIG_HOME/syncd/syncd.toml "
                + "(~/.config/syncd/syncd.toml).",
            valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: "Override the config's log_level (trace, debug, info, notice, warning, error, critical).")
    var logLevel: String?

    func run() async throws {
        let loaded: DaemonConfig
        let path = config ?? StandardPaths.daemonConfig(environment: ProcessInfo.processInfo.environment)
        if config == nil && !FileManager.default.fileExists(atPath: path) {
            Self.fail("syncd: no config at \(path) (the default place); write one there (see Config/syncd.toml) or pass --config FILE")
        }
        do {
            loaded = try DaemonConfig.load(path: path)
        } catch {
            Self.fail("syncd: \(error)")
        }
        let level = ReloadableLogLevel(Logger.Level(rawValue: logLevel ?? loaded.daemon.logLevel) ?? .info)
        let recent = RecentLog()
        level.bootstrap(format: LogFormat(rawValue: loaded.daemon.logFormat) ?? .text, onRecord: { recent.append($0) })
        let logger = Logger(label: "syncd")
        do {
            // With --log-level, a reload leaves the level alone.
            try await Daemon.run(config: loaded, logLevel: logLevel == nil ? level : nil, recentLog: recent, logger: logger)
        } catch let error as DaemonError {
            logger.debug("start failed", metadata: ["error": "\(String(reflecting: error))"])
            Self.fail("syncd: \(error)" + (error.underlying.map { "\n  cause: \($0)" } ?? ""))
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Foundation.exit(1)
    }
}
