import Foundation

/// The configuration of `sync-server` (see `Config/sync-server.toml` and `docs/configuration.md`).
public struct ServerConfig: Sendable, Equatable {
    /// Path of the config file, as given.
    public var file: String
    /// Address to listen on, from `[server].listen`; an IPv6 address without brackets.
    public var host: String
    /// Port to listen on; 0 picks a free port.
    public var port: Int
    /// Absolute path of the server's data directory (SQLite database, blobs).
    public var dataDir: String
    /// Metadata store: "sqlite".
    public var metadata: String
    /// `[storage] password_file`: the PostgreSQL password, when the metadata URL has none.
    public var passwordFile: String?
    /// Blob store: "filesystem" or "s3://bucket/prefix".
    public var blobs: String
    /// `[storage.s3]` with the environment, when `blobs` is an s3:// URL.
    public var s3: S3?
    /// How long old versions and deleted files are kept.
    public var retention: Duration
    /// PEM certificate chain and private key (`[server] tls_cert`, `tls_key`): serve https.
    public var tls: TLSFiles?

    /// The server's certificate chain and key, both PEM files.
    public struct TLSFiles: Sendable, Equatable {
        public var certificate: String
        public var key: String
        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }
    /// Compaction rewrites a sealed pack whose live fraction is below this (0...1).
    public var compactBelow: Double
    /// `[server] log_level` (nil: not set; the LOG_LEVEL environment variable wins over it).
    public var logLevel: String?
    /// `[server] log_format`: "text" or "json".
    public var logFormat: String = "text"

    public init(
        file: String, host: String = "127.0.0.1", port: Int = 8417, dataDir: String,
        metadata: String = "sqlite", blobs: String = "filesystem", retention: Duration = ServerConfig.defaultRetention,
        tls: TLSFiles? = nil,
        compactBelow: Double = ServerConfig.defaultCompactBelow, logLevel: String? = nil, s3: S3? = nil
    ) {
        self.s3 = s3
        self.logLevel = logLevel
        self.tls = tls
        self.file = file
        self.host = host
        self.port = port
        self.dataDir = dataDir
        self.metadata = metadata
        self.blobs = blobs
        self.retention = retention
        self.compactBelow = compactBelow
    }

    public static let defaultListen = "127.0.0.1:8417"
    public static let defaultDataDir = "~/.local/share/sync-server"
    public static let defaultRetention: Duration = .seconds(30 * 86_400)
    public static let defaultCompactBelow = 0.5

    static let rootKeys = ["server", "storage"]
    static let serverKeys = ["listen", "data_dir", "tls_cert", "tls_key", "log_level", "log_format"]
    static let storageKeys = ["metadata", "password_file", "blobs", "retention", "compact_below", "s3"]

    /// Reads, parses and validates a sync-server config file. `data_dir` need not exist.
    public static func load(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        systemService: Bool? = nil
    ) throws(ConfigError) -> ServerConfig {
        let text = try TOMLReader.readFile(path)
        let service = systemService ?? StandardPaths.isSystemService(configFile: path, uid: getuid())
        return try parse(toml: text, file: path, environment: environment, systemService: service)
    }

    /// Parses and validates config text; `file` names it in errors and anchors relative paths.
    /// `systemService` picks the default `data_dir` (see `StandardPaths.serverDataDir`).
    public static func parse(
        toml: String, file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        systemService: Bool = false
    ) throws(ConfigError) -> ServerConfig {
        let root = try TOMLReader.document(toml, file: file, known: rootKeys)
        let server = try root.section("server", known: serverKeys)
        let storage = try root.section("storage", known: storageKeys)

        let listen = try server.string("listen", expected: "a string such as \"127.0.0.1:8417\"") ?? defaultListen
        let (host, port) = try parseListen(listen, reader: server)

        let base = TOMLReader.directory(of: file)
        let dataDir: String
        if let raw = try server.string("data_dir", expected: "a path string") {
            dataDir = try server.expandPath("data_dir", raw, environment: environment, base: base)
        } else {
            let fallback = StandardPaths.serverDataDir(environment: environment, systemService: systemService)
            do {
                dataDir = try PathExpansion.expand(fallback, environment: environment, relativeTo: base)
            } catch {
                throw server.error("data_dir", "cannot expand the default \"\(fallback)\": \(error); set data_dir explicitly")
            }
        }

        let tls = try parseTLS(server, environment: environment, base: base)
        let logLevel = try server.string("log_level")
        if let logLevel, !DaemonConfig.logLevels.contains(logLevel) {
            throw server.error("log_level", "invalid log level: " + Suggest.oneOf(DaemonConfig.logLevels, got: logLevel))
        }

        let logFormat = try server.string("log_format") ?? "text"
        guard DaemonConfig.logFormats.contains(logFormat) else {
            throw server.error("log_format", "invalid log format: " + Suggest.oneOf(DaemonConfig.logFormats, got: logFormat))
        }
        let metadata = try storage.string("metadata") ?? "sqlite"
        let postgres = metadata.hasPrefix("postgres://") || metadata.hasPrefix("postgresql://")
        if !postgres {
            try checkStore(metadata, key: "metadata", supported: "sqlite", later: [], reader: storage)
        }
        let passwordFile = try storage.string("password_file").map { raw throws(ConfigError) in
            try storage.expandPath("password_file", raw, environment: environment, base: base)
        }
        if passwordFile != nil && !postgres {
            throw storage.error("password_file", "is the PostgreSQL password; it needs metadata = \"postgres://USER@HOST/DATABASE\"")
        }
        let blobs = try storage.string("blobs") ?? "filesystem"
        if !blobs.hasPrefix("s3://") {
            try checkStore(blobs, key: "blobs", supported: "filesystem", later: [], reader: storage)
        }
        let s3 = try parseS3(blobs: blobs, storage: storage, environment: environment, base: base)
        let retention = try storage.duration("retention") ?? defaultRetention
        let compactBelow = try storage.number("compact_below") ?? defaultCompactBelow
        guard (0...1).contains(compactBelow) else {
            throw storage.error(
                "compact_below", "out of range: expected a number from 0 to 1 (e.g. 0.5; 0 rewrites no pack), got \(compactBelow)")
        }

        var config = ServerConfig(file: file, host: host, port: port, dataDir: dataDir,
                            metadata: metadata, blobs: blobs, retention: retention, tls: tls, compactBelow: compactBelow,
                            logLevel: logLevel, s3: s3)
        config.logFormat = logFormat
        config.passwordFile = passwordFile
        return config
    }

    /// `tls_cert` and `tls_key`: both or neither.
    private static func parseTLS(
        _ server: TOMLReader, environment: [String: String], base: String
    ) throws(ConfigError) -> TLSFiles? {
        let cert = try server.string("tls_cert", expected: "the path of a PEM certificate chain")
        let key = try server.string("tls_key", expected: "the path of a PEM private key")
        switch (cert, key) {
        case (nil, nil):
            return nil
        case (let cert?, let key?):
            return TLSFiles(
                certificate: try server.expandPath("tls_cert", cert, environment: environment, base: base),
                key: try server.expandPath("tls_key", key, environment: environment, base: base))
        case (nil, _):
            throw server.error("tls_cert", "tls_key is set but tls_cert is not; give both (PEM files) to serve https, or neither")
        case (_, nil):
            throw server.error("tls_key", "tls_cert is set but tls_key is not; give both (PEM files) to serve https, or neither")
        }
    }

    private static func checkStore(
        _ value: String, key: String, supported: String, later: [String], reader: TOMLReader
    ) throws(ConfigError) {
        if value == supported { return }
        if later.contains(where: { value.hasPrefix($0) }) {
            throw reader.error(key, "\"\(value)\" is not supported yet; only \"\(supported)\" is")
        }
        throw reader.error(key, "invalid \(key) store: " + Suggest.oneOf([supported], got: value))
    }

    /// Splits `HOST:PORT` or `[IPV6]:PORT`; port 0...65535.
    static func parseListen(
        _ listen: String, reader: TOMLReader, key: String = "listen", examplePort: Int = 8417
    ) throws(ConfigError) -> (host: String, port: Int) {
        let expected =
            "expected HOST:PORT or [IPV6]:PORT, e.g. \"127.0.0.1:\(examplePort)\" or \"[::1]:\(examplePort)\""
        func fail(_ why: String) -> ConfigError {
            reader.error(key, "invalid listen address \"\(listen)\": \(why)")
        }
        let host: Substring
        let portText: Substring
        if listen.hasPrefix("[") {
            guard let close = listen.firstIndex(of: "]") else { throw fail("missing \"]\"; \(expected)") }
            host = listen[listen.index(after: listen.startIndex)..<close]
            let afterBracket = listen[listen.index(after: close)...]
            guard afterBracket.first == ":" else { throw fail("missing \":PORT\" after \"]\"; \(expected)") }
            portText = afterBracket.dropFirst()
            let ipv6Chars = "0123456789abcdefABCDEF:."
            guard host.contains(":"), host.allSatisfy({ ipv6Chars.contains($0) }) else {
                throw fail("\"\(host)\" is not an IPv6 address; \(expected)")
            }
        } else {
            guard let colon = listen.lastIndex(of: ":") else { throw fail("missing \":PORT\"; \(expected)") }
            host = listen[..<colon]
            portText = listen[listen.index(after: colon)...]
            if host.contains(":") { throw fail("an IPv6 address must be in brackets, e.g. \"[::1]:\(examplePort)\"") }
            let hostChars: (Character) -> Bool = { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
            guard !host.isEmpty, host.allSatisfy(hostChars) else {
                throw fail("\"\(host)\" is not a host name or IPv4 address; \(expected)")
            }
        }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit), let port = Int(portText) else {
            throw fail("port \"\(portText)\" is not a number; \(expected)")
        }
        guard port <= 65535 else { throw fail("port \(port) is out of range 0-65535") }
        return (String(host), port)
    }
}
