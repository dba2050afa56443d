import Foundation

/// The configuration of `syncd` (see `Config/syncd.toml` and `docs/configuration.md`).
///
/// Paths are already expanded (`~`, `$VARS`) and absolute.
public struct DaemonConfig: Sendable, Equatable {
    public struct Daemon: Sendable, Equatable {
        /// Index database, journal, staging area, trash.
        public var stateDir: String
        /// Unix socket `syncctl` talks to.
        public var controlSocket: String
        /// One of `DaemonConfig.logLevels`.
        public var logLevel: String
        /// How long files removed by remote deletes stay in the local trash.
        public var trashRetention: Duration
        /// One of `DaemonConfig.logFormats`: "text" (for people) or "json" (one object a line).
        public var logFormat: String = "text"
        /// Where Prometheus metrics are served (`GET /metrics`), from `metrics_listen`; nil: not served.
        public var metricsListen: MetricsListen?

        public init(
            stateDir: String, controlSocket: String, logLevel: String = "info",
            trashRetention: Duration = DaemonConfig.defaultTrashRetention, metricsListen: MetricsListen? = nil
        ) {
            self.stateDir = stateDir
            self.controlSocket = controlSocket
            self.logLevel = logLevel
            self.trashRetention = trashRetention
            self.metricsListen = metricsListen
        }
    }

    public struct Server: Sendable, Equatable {
        /// Base URL of the sync server, e.g. `http://127.0.0.1:8417`.
        public var url: String
        /// File holding this device's credential.
        public var credentialFile: String
        /// PEM file of the certificate authorities to trust for an `https://` server,
        /// instead of the system's store.
        public var caFile: String?
        /// Lets the credential go over plain http to a host that is not loopback.
        public var allowInsecureHTTP: Bool

        public init(url: String, credentialFile: String, caFile: String? = nil, allowInsecureHTTP: Bool = false) {
            self.url = url
            self.credentialFile = credentialFile
            self.caFile = caFile
            self.allowInsecureHTTP = allowInsecureHTTP
        }
    }

    public struct Transfer: Sendable, Equatable {
        /// Transfers running at once, 1...64.
        public var maxConcurrent: Int
        /// Upload bandwidth in bytes per second; 0 = unlimited.
        public var uploadLimit: ByteSize
        /// Download bandwidth in bytes per second; 0 = unlimited.
        public var downloadLimit: ByteSize

        public init(maxConcurrent: Int = 4, uploadLimit: ByteSize = .zero, downloadLimit: ByteSize = .zero) {
            self.maxConcurrent = maxConcurrent
            self.uploadLimit = uploadLimit
            self.downloadLimit = downloadLimit
        }
    }

    public struct Folder: Sendable, Equatable {
        /// 1–64 characters of `[A-Za-z0-9._-]`, unique in the file.
        public var id: String
        /// Absolute path of the local folder.
        public var path: String
        /// Ignore patterns, gitignore syntax.
        public var ignore: [String]
        /// Quiet time for files still open for writing.
        public var settle: Duration
        /// Period of the safety-net full rescan; > 0.
        public var rescanInterval: Duration
        /// Deleting more than this fraction of the folder at once waits for approval; in (0, 1].
        public var maxDeleteFraction: Double
        /// Deleting more than this many entries at once waits for approval, whatever the fraction.
        public var maxDeleteCount: Int

        public init(
            id: String, path: String, ignore: [String] = [],
            settle: Duration = DaemonConfig.defaultSettle,
            rescanInterval: Duration = DaemonConfig.defaultRescanInterval,
            maxDeleteFraction: Double = DaemonConfig.defaultMaxDeleteFraction,
            maxDeleteCount: Int = DaemonConfig.defaultMaxDeleteCount
        ) {
            self.maxDeleteCount = maxDeleteCount
            self.id = id
            self.path = path
            self.ignore = ignore
            self.settle = settle
            self.rescanInterval = rescanInterval
            self.maxDeleteFraction = maxDeleteFraction
        }
    }

    /// Path of the config file, as given.
    public var file: String
    public var daemon: Daemon
    public var server: Server
    public var transfer: Transfer
    public var folders: [Folder]

    public init(file: String, daemon: Daemon, server: Server, transfer: Transfer = Transfer(), folders: [Folder]) {
        self.file = file
        self.daemon = daemon
        self.server = server
        self.transfer = transfer
        self.folders = folders
    }

    // MARK: Defaults and limits

    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    public static let logFormats = ["text", "json"]
    /// The documented default; the parser uses `StandardPaths.daemonStateDir` (which
    /// honours `$XDG_STATE_HOME`).
    public static let defaultStateDir = "~/.local/state/syncd"
    public static let controlSocketName = "syncd.sock"
    public static let defaultLogLevel = "info"
    public static let defaultTrashRetention: Duration = .seconds(30 * 24 * 3600)
    public static let defaultMaxConcurrent = 4
    public static let maxConcurrentRange = 1...64
    public static let defaultSettle: Duration = .milliseconds(100)
    public static let defaultRescanInterval: Duration = .seconds(3600)
    public static let defaultMaxDeleteFraction = 0.5
    public static let defaultMaxDeleteCount = 1_000

    // MARK: Loading

    /// Reads, parses and validates a syncd config file.
    /// - Parameters:
    ///   - environment: used to expand `~` (HOME) and `$VARS` in paths.
    ///   - checkPaths: when true, folder paths must be existing directories and
    ///     `credential_file` an existing regular file.
    public static func load(
        path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        checkPaths: Bool = true
    ) throws(ConfigError) -> DaemonConfig {
        let text = try TOMLReader.readFile(path)
        return try parse(toml: text, file: path, environment: environment, checkPaths: checkPaths)
    }

    /// Parses and validates config text; `file` names it in errors and anchors relative paths.
    public static func parse(
        toml: String,
        file: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        checkPaths: Bool = true
    ) throws(ConfigError) -> DaemonConfig {
        let parser = DaemonConfigParser(file: file, environment: environment)
        let config = try parser.parse(toml)
        try config.validate(checkPaths: checkPaths)
        return config
    }
}
