import Testing
@testable import SyncConfig

@Suite struct ConfigChangeTests {
    static func config(
        folders: [DaemonConfig.Folder], logLevel: String = "info", upload: Int64 = 0, download: Int64 = 0,
        stateDir: String = "/state", url: String = "http://127.0.0.1:8417", maxConcurrent: Int = 4
    ) -> DaemonConfig {
        DaemonConfig(
            file: "/etc/syncd.toml", daemon: .init(stateDir: stateDir, controlSocket: "/state/syncd.sock", logLevel: logLevel),
            server: .init(url: url, credentialFile: "/etc/credential"),
            transfer: .init(
                maxConcurrent: maxConcurrent, uploadLimit: ByteSize(bytes: upload), downloadLimit: ByteSize(bytes: download)),
            folders: folders)
    }

    static let docs = DaemonConfig.Folder(id: "docs", path: "/srv/docs")
    static let photos = DaemonConfig.Folder(id: "photos", path: "/srv/photos")
    static let music = DaemonConfig.Folder(id: "music", path: "/srv/music")

    @Test func sameConfigChangesNothing() {
        let old = Self.config(folders: [Self.docs, Self.photos])
        let change = ConfigChange(from: old, to: old)
        #expect(change.isEmpty)
        #expect(change.needsRestart.isEmpty)
        #expect(change.effective == old)
        #expect(change.summary == "nothing changed")
    }

    @Test func foldersAddedAndRemovedLeaveTheOthersAlone() {
        let old = Self.config(folders: [Self.docs, Self.photos])
        let new = Self.config(folders: [Self.docs, Self.music])
        let change = ConfigChange(from: old, to: new)
        #expect(change.added == [Self.music])
        #expect(change.removed == ["photos"])
        #expect(change.restarted.isEmpty)
        #expect(change.ignoreChanged.isEmpty)
        #expect(change.effective.folders == [Self.docs, Self.music])
    }

    @Test func onlyIgnoreChangedIsUpdatedInPlace() {
        var docs = Self.docs
        docs.ignore = ["*.tmp"]
        let change = ConfigChange(from: Self.config(folders: [Self.docs]), to: Self.config(folders: [docs]))
        #expect(change.ignoreChanged == [docs])
        #expect(change.restarted.isEmpty)
        #expect(change.added.isEmpty && change.removed.isEmpty)
    }

    @Test func otherFolderSettingsRestartTheFolder() {
        var moved = Self.docs
        moved.path = "/srv/elsewhere"
        moved.ignore = ["*.tmp"]
        var settled = Self.photos
        settled.settle = .seconds(2)
        let change = ConfigChange(
            from: Self.config(folders: [Self.docs, Self.photos]), to: Self.config(folders: [moved, settled]))
        #expect(change.restarted == [moved, settled])
        #expect(change.ignoreChanged.isEmpty)
    }

    @Test func logLevelAndLimitsApplyAtRunTime() {
        let change = ConfigChange(
            from: Self.config(folders: [Self.docs]),
            to: Self.config(folders: [Self.docs], logLevel: "debug", upload: 512 << 10))
        #expect(change.logLevel == "debug")
        #expect(change.limits == .init(upload: 512 << 10, download: 0))
        #expect(change.needsRestart.isEmpty)
        #expect(change.summary == "log level debug; upload limit 512KiB/s, download limit unlimited")
    }

    @Test func startOnlySettingsNeedARestartAndKeepTheirOldValues() {
        let old = Self.config(folders: [Self.docs])
        let new = Self.config(
            folders: [Self.docs, Self.music], stateDir: "/other", url: "http://127.0.0.1:9000", maxConcurrent: 8)
        let change = ConfigChange(from: old, to: new)
        #expect(change.needsRestart == ["daemon.state_dir", "server.url", "transfer.max_concurrent"])
        #expect(change.effective.daemon.stateDir == "/state")
        #expect(change.effective.server.url == "http://127.0.0.1:8417")
        #expect(change.effective.transfer.maxConcurrent == 4)
        #expect(change.added == [Self.music])
        // A second reload of the same file finds the same keys, and nothing else to do.
        let again = ConfigChange(from: change.effective, to: new)
        #expect(again.isEmpty)
        #expect(again.needsRestart == change.needsRestart)
    }

    @Test func downloadLimitParses() throws {
        let config = try parseDaemon("[transfer]\ndownload_limit = \"2MiB/s\"\n" + minimalDaemon)
        #expect(config.transfer.downloadLimit == ByteSize(bytes: 2 << 20))
        #expect(config.transfer.uploadLimit == .zero)
        #expect(throws: ConfigError.self) { try parseDaemon("[transfer]\ndownload_limit = -5\n" + minimalDaemon) }
    }
}

@Suite struct ServerConfigChangeTests {
    static func config(
        listen port: Int = 8417, dataDir: String = "/var/lib/s", retention: Duration = .seconds(86_400),
        compactBelow: Double = 0.5, logLevel: String? = nil, tls: ServerConfig.TLSFiles? = nil
    ) -> ServerConfig {
        ServerConfig(
            file: "/etc/s.toml", port: port, dataDir: dataDir, retention: retention, tls: tls, compactBelow: compactBelow,
            logLevel: logLevel)
    }

    @Test func runTimeSettings() {
        let change = ServerConfigChange(
            from: Self.config(), to: Self.config(retention: .seconds(3600), compactBelow: 0.2, logLevel: "debug"))
        #expect(change.retention == .seconds(3600))
        #expect(change.compactBelow == 0.2)
        #expect(change.logLevel! == "debug")
        #expect(change.needsRestart.isEmpty)
    }

    @Test func startOnlySettingsNeedARestart() {
        let change = ServerConfigChange(
            from: Self.config(),
            to: Self.config(listen: 9000, dataDir: "/elsewhere", tls: .init(certificate: "/c.pem", key: "/k.pem")))
        #expect(change.needsRestart == ["server.listen", "server.data_dir", "server.tls_cert/tls_key"])
        #expect(change.retention == nil && change.compactBelow == nil && change.logLevel == nil)
    }

    @Test func logLevelParses() throws {
        let config = try ServerConfig.parse(toml: "[server]\nlog_level = \"debug\"\ndata_dir = \"/d\"\n", file: "/etc/s.toml")
        #expect(config.logLevel == "debug")
        #expect(throws: ConfigError.self) {
            try ServerConfig.parse(toml: "[server]\nlog_level = \"loud\"\ndata_dir = \"/d\"\n", file: "/etc/s.toml")
        }
    }
}
