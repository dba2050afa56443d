import Foundation
import TOMLKit

/// Turns the TOML of a syncd config into a `DaemonConfig`, key by key.
struct DaemonConfigParser {
    let file: String
    let environment: [String: String]
    /// Directory of the config file: relative paths resolve against it.
    let base: String

    static let rootKeys = ["daemon", "server", "transfer", "folder"]
    static let daemonKeys = ["state_dir", "control_socket", "log_level", "log_format", "trash_retention", "metrics_listen"]
    static let serverKeys = ["url", "credential_file", "ca_file", "allow_insecure_http"]
    static let transferKeys = ["max_concurrent", "upload_limit", "download_limit"]
    static let folderKeys = ["id", "path", "ignore", "settle", "rescan_interval", "max_delete_fraction", "max_delete_count"]

    init(file: String, environment: [String: String]) {
        self.file = file
        self.environment = environment
        self.base = TOMLReader.directory(of: file)
    }

    func parse(_ text: String) throws(ConfigError) -> DaemonConfig {
        let root = try TOMLReader.document(text, file: file, known: Self.rootKeys)
        let daemon = try parseDaemon(root.section("daemon", known: Self.daemonKeys))
        guard let serverSection = try root.subtable("server", known: Self.serverKeys) else {
            throw root.error("server", "missing required table [server] (with url and credential_file)")
        }
        let server = try parseServer(serverSection)
        let transfer = try parseTransfer(root.section("transfer", known: Self.transferKeys))
        let folderSections = try root.tableArray("folder", known: Self.folderKeys) ?? []
        guard !folderSections.isEmpty else {
            throw root.error("folder", "at least one [[folder]] table is required (with id and path)")
        }
        var folders: [DaemonConfig.Folder] = []
        for section in folderSections {
            folders.append(try parseFolder(section))
        }
        return DaemonConfig(file: file, daemon: daemon, server: server, transfer: transfer, folders: folders)
    }

    private func path(_ reader: TOMLReader, _ key: String, default fallback: String? = nil) throws(ConfigError) -> String? {
        if let raw = try reader.string(key, expected: "a path string") {
            return try reader.expandPath(key, raw, environment: environment, base: base)
        }
        guard let fallback else { return nil }
        do {
            return try PathExpansion.expand(fallback, environment: environment, relativeTo: base)
        } catch {
            throw reader.error(key, "cannot expand the default \"\(fallback)\": \(error); set \(key) explicitly")
        }
    }

    private func parseDaemon(_ reader: TOMLReader) throws(ConfigError) -> DaemonConfig.Daemon {
        let stateDir = try path(reader, "state_dir", default: StandardPaths.daemonStateDir(environment: environment)) ?? ""
        let socket = try path(reader, "control_socket") ?? stateDir + "/" + DaemonConfig.controlSocketName
        let logLevel = try reader.string("log_level") ?? DaemonConfig.defaultLogLevel
        guard DaemonConfig.logLevels.contains(logLevel) else {
            throw reader.error("log_level", "invalid log level: " + Suggest.oneOf(DaemonConfig.logLevels, got: logLevel))
        }
        let logFormat = try reader.string("log_format") ?? "text"
        guard DaemonConfig.logFormats.contains(logFormat) else {
            throw reader.error("log_format", "invalid log format: " + Suggest.oneOf(DaemonConfig.logFormats, got: logFormat))
        }
        let trashRetention = try reader.duration("trash_retention") ?? DaemonConfig.defaultTrashRetention
        let metricsListen = try reader.string("metrics_listen", expected: "a string such as \"127.0.0.1:9417\"")
            .map { listen throws(ConfigError) in try DaemonConfig.MetricsListen.parse(listen, reader: reader) }
        var daemon = DaemonConfig.Daemon(
            stateDir: stateDir, controlSocket: socket, logLevel: logLevel, trashRetention: trashRetention,
            metricsListen: metricsListen)
        daemon.logFormat = logFormat
        return daemon
    }

    private func parseServer(_ reader: TOMLReader) throws(ConfigError) -> DaemonConfig.Server {
        let url = try reader.required(reader.string("url"), "url", "a string such as \"https://sync.example.org\"")
        if let problem = Self.urlProblem(url) {
            throw reader.error("url", "invalid server URL \"\(url)\": \(problem)")
        }
        let credential = try reader.required(path(reader, "credential_file"), "credential_file",
                                             "the path of this device's credential file")
        let caFile = try path(reader, "ca_file")
        let allowInsecure = try reader.bool("allow_insecure_http") ?? false
        if let host = Self.plainHTTPHost(url), !Self.isLoopback(host), !allowInsecure {
            throw reader.error(
                "url",
                "refusing to send the device credential and your files in clear text to \(host) over http; "
                    + "use https://, or set allow_insecure_http = true if the network in between is trusted")
        }
        if caFile != nil, Self.plainHTTPHost(url) != nil {
            throw reader.error("ca_file", "ca_file is only used with an https:// url")
        }
        return DaemonConfig.Server(url: url, credentialFile: credential, caFile: caFile, allowInsecureHTTP: allowInsecure)
    }

    /// The host of an `http://` URL (nil for https).
    static func plainHTTPHost(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), parts.scheme?.lowercased() == "http" else { return nil }
        return parts.host
    }

    /// 127.0.0.0/8, ::1 and localhost: traffic that never leaves the machine.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Why `url` is not an acceptable server URL, or nil when it is.
    static func urlProblem(_ url: String) -> String? {
        let expected = "expected http(s)://HOST[:PORT][/PATH], e.g. \"https://sync.example.org\" or \"http://127.0.0.1:8417\""
        guard let parts = URLComponents(string: url), let scheme = parts.scheme else { return expected }
        guard ["http", "https"].contains(scheme.lowercased()) else {
            return "scheme \"\(scheme)\" is not supported; \(expected)"
        }
        guard let host = parts.host, !host.isEmpty else { return "no host; \(expected)" }
        if let port = parts.port, !(1...65535).contains(port) { return "port \(port) is out of range 1-65535" }
        if parts.user != nil || parts.password != nil {
            return "user information is not allowed in the URL; the credential goes in credential_file"
        }
        if parts.query != nil || parts.fragment != nil { return "a query or fragment is not allowed; \(expected)" }
        return nil
    }

    private func parseTransfer(_ reader: TOMLReader) throws(ConfigError) -> DaemonConfig.Transfer {
        let maxConcurrent = try reader.int("max_concurrent", in: DaemonConfig.maxConcurrentRange)
            ?? DaemonConfig.defaultMaxConcurrent
        return DaemonConfig.Transfer(
            maxConcurrent: maxConcurrent, uploadLimit: try rate(reader, "upload_limit"),
            downloadLimit: try rate(reader, "download_limit"))
    }

    /// A bandwidth limit: a rate string or integer bytes per second; absent or 0 = unlimited.
    private func rate(_ reader: TOMLReader, _ key: String) throws(ConfigError) -> ByteSize {
        var limit = ByteSize.zero
        if let value = reader.table[key] {
            if let bytes = value.int, bytes >= 0 {
                limit = ByteSize(bytes: Int64(bytes))
            } else if let text = value.string {
                guard let parsed = ByteSize.parseRate(text) else {
                    throw reader.error(key, "invalid size \"\(text)\": expected \"0\" (unlimited) or a size per second such as \"10MiB/s\", \"512KiB/s\", \"10MB/s\" (units B, KB, KiB, MB, MiB, GB, GiB, TB, TiB; case-sensitive)")
                }
                limit = parsed
            } else if value.int != nil {
                throw reader.error(key, "out of range: a rate cannot be negative; use 0 for unlimited")
            } else {
                throw reader.wrongType(key, expected: "a size string such as \"10MiB/s\"", got: value)
            }
        }
        return limit
    }

    private func parseFolder(_ reader: TOMLReader) throws(ConfigError) -> DaemonConfig.Folder {
        let id = try reader.required(reader.string("id"), "id", "a string of 1-64 characters from A-Z a-z 0-9 . _ -")
        if let problem = Self.idProblem(id) {
            throw reader.error("id", "invalid folder id \"\(id)\": \(problem)")
        }
        let path = try reader.required(path(reader, "path"), "path", "the path of the local folder to sync")
        let ignore = try reader.stringArray("ignore") ?? []
        let settle = try reader.duration("settle") ?? DaemonConfig.defaultSettle
        let rescan = try reader.duration("rescan_interval") ?? DaemonConfig.defaultRescanInterval
        guard rescan > .zero else {
            throw reader.error("rescan_interval", "out of range: must be greater than 0, e.g. \"1h\"")
        }
        let fraction = try reader.number("max_delete_fraction") ?? DaemonConfig.defaultMaxDeleteFraction
        guard fraction > 0, fraction <= 1 else {
            throw reader.error("max_delete_fraction",
                               "out of range: expected a number greater than 0 and at most 1 (e.g. 0.5), got \(fraction)")
        }
        let count = try reader.int("max_delete_count", in: 1...Int(Int32.max)) ?? DaemonConfig.defaultMaxDeleteCount
        return DaemonConfig.Folder(id: id, path: path, ignore: ignore, settle: settle,
                                   rescanInterval: rescan, maxDeleteFraction: fraction, maxDeleteCount: count)
    }

    /// Why `id` is not a valid folder id, or nil when it is.
    static func idProblem(_ id: String) -> String? {
        guard (1...64).contains(id.count) else { return "must be 1 to 64 characters long, got \(id.count)" }
        let allowed: (Character) -> Bool = { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
        if let bad = id.first(where: { !allowed($0) }) {
            return "character \"\(bad)\" is not allowed; use only A-Z a-z 0-9 . _ -"
        }
        if id == "." || id == ".." { return "\".\" and \"..\" are reserved" }
        return nil
    }
}
