/// What a reload of syncd's config changes, computed from the config in force and the new
/// one without any I/O: the daemon performs it (`Daemon` reload), tests check it alone.
///
/// Folders are matched by id. A folder whose only change is its `ignore` list is updated
/// in place (its transfers go on); one whose path or other settings changed is restarted;
/// the others are not touched. Daemon-wide settings that a running daemon cannot change
/// (state_dir, control_socket, metrics_listen, log_format, the server, max_concurrent, trash_retention) are named in
/// `needsRestart` and the config in force keeps their old values (`effective`).
public struct ConfigChange: Sendable, Equatable {
    /// Folders to start.
    public var added: [DaemonConfig.Folder] = []
    /// Ids of the folders to stop.
    public var removed: [String] = []
    /// Folders to stop and start again with their new settings.
    public var restarted: [DaemonConfig.Folder] = []
    /// Folders whose ignore patterns changed, and nothing else.
    public var ignoreChanged: [DaemonConfig.Folder] = []
    /// The new log level, when it changed.
    public var logLevel: String?
    /// The new upload and download limits, when one of them changed.
    public var limits: Limits?
    /// Config keys that changed but take effect only at the next start, e.g. "daemon.state_dir".
    public var needsRestart: [String] = []
    /// The config in force after the reload: the new one, with the keys of `needsRestart`
    /// at their old values.
    public var effective: DaemonConfig

    /// Nothing to do (the file did not change, or changed only in what needs a restart).
    public var isEmpty: Bool {
        added.isEmpty && removed.isEmpty && restarted.isEmpty && ignoreChanged.isEmpty && logLevel == nil
            && limits == nil
    }

    public init(from old: DaemonConfig, to new: DaemonConfig) {
        var effective = new
        var needsRestart: [String] = []
        func keep<T: Equatable>(_ key: String, _ path: WritableKeyPath<DaemonConfig, T>) {
            guard old[keyPath: path] != new[keyPath: path] else { return }
            needsRestart.append(key)
            effective[keyPath: path] = old[keyPath: path]
        }
        keep("daemon.state_dir", \.daemon.stateDir)
        keep("daemon.control_socket", \.daemon.controlSocket)
        keep("daemon.trash_retention", \.daemon.trashRetention)
        keep("daemon.metrics_listen", \.daemon.metricsListen)
        keep("daemon.log_format", \.daemon.logFormat)
        keep("server.url", \.server.url)
        keep("server.credential_file", \.server.credentialFile)
        keep("server.ca_file", \.server.caFile)
        keep("server.allow_insecure_http", \.server.allowInsecureHTTP)
        keep("transfer.max_concurrent", \.transfer.maxConcurrent)
        self.effective = effective
        self.needsRestart = needsRestart
        if old.daemon.logLevel != new.daemon.logLevel { logLevel = new.daemon.logLevel }
        if old.transfer.uploadLimit != new.transfer.uploadLimit || old.transfer.downloadLimit != new.transfer.downloadLimit {
            limits = Limits(upload: new.transfer.uploadLimit.bytes, download: new.transfer.downloadLimit.bytes)
        }
        let before = Dictionary(old.folders.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Set(new.folders.map(\.id))
        removed = old.folders.map(\.id).filter { !after.contains($0) }
        for folder in new.folders {
            guard let previous = before[folder.id] else {
                added.append(folder)
                continue
            }
            guard previous != folder else { continue }
            var sameIgnore = folder
            sameIgnore.ignore = previous.ignore
            if sameIgnore == previous {
                ignoreChanged.append(folder)
            } else {
                restarted.append(folder)
            }
        }
    }

    /// Bandwidth limits in bytes per second; 0 = unlimited.
    public struct Limits: Sendable, Equatable {
        public var upload: Int64
        public var download: Int64
        public init(upload: Int64, download: Int64) {
            self.upload = upload
            self.download = download
        }
    }

    /// One line for the log: what the reload did.
    public var summary: String {
        var parts: [String] = []
        if !added.isEmpty { parts.append("added folder(s) \(added.map(\.id).joined(separator: ", "))") }
        if !removed.isEmpty { parts.append("removed folder(s) \(removed.joined(separator: ", "))") }
        if !restarted.isEmpty { parts.append("restarted folder(s) \(restarted.map(\.id).joined(separator: ", ")) with new settings") }
        if !ignoreChanged.isEmpty { parts.append("new ignore rules for \(ignoreChanged.map(\.id).joined(separator: ", "))") }
        if let logLevel { parts.append("log level \(logLevel)") }
        if let limits {
            parts.append("upload limit \(Self.rate(limits.upload)), download limit \(Self.rate(limits.download))")
        }
        return parts.isEmpty ? "nothing changed" : parts.joined(separator: "; ")
    }

    static func rate(_ bytes: Int64) -> String {
        bytes == 0 ? "unlimited" : "\(ByteSize(bytes: bytes))/s"
    }
}
