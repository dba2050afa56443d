/// What a SIGHUP reload of sync-server changes, from the config in force and the new one
/// (no I/O). Retention, compaction and the log level change while the server runs; the
/// listen address, data directory, stores and TLS files are read only at start and are
/// named in `needsRestart`.
public struct ServerConfigChange: Sendable, Equatable {
    /// The new `[storage] retention`, when it changed.
    public var retention: Duration?
    /// The new `[storage] compact_below`, when it changed.
    public var compactBelow: Double?
    /// The new `[server] log_level`, when it changed (nil inside: no longer set).
    public var logLevel: String??
    /// Keys that changed but take effect at the next start, e.g. "server.listen".
    public var needsRestart: [String] = []

    public init(from old: ServerConfig, to new: ServerConfig) {
        if old.retention != new.retention { retention = new.retention }
        if old.compactBelow != new.compactBelow { compactBelow = new.compactBelow }
        if old.logLevel != new.logLevel { logLevel = .some(new.logLevel) }
        if old.host != new.host || old.port != new.port { needsRestart.append("server.listen") }
        if old.dataDir != new.dataDir { needsRestart.append("server.data_dir") }
        if old.tls != new.tls { needsRestart.append("server.tls_cert/tls_key") }
        if old.metadata != new.metadata { needsRestart.append("storage.metadata") }
        if old.blobs != new.blobs { needsRestart.append("storage.blobs") }
        if old.s3 != new.s3 { needsRestart.append("storage.s3") }
        if old.logFormat != new.logFormat { needsRestart.append("server.log_format") }
    }

    /// One line for the log: what the reload changed.
    public var summary: String {
        var parts: [String] = []
        if let retention { parts.append("retention \(retention)") }
        if let compactBelow { parts.append("compact_below \(compactBelow)") }
        if let logLevel { parts.append("log level \(logLevel ?? "info (default)")") }
        return parts.isEmpty ? "nothing that applies at run time changed" : parts.joined(separator: "; ")
    }
}
