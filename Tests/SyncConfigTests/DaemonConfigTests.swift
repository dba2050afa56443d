import Foundation
import Testing
@testable import SyncConfig

@Suite struct DaemonConfigTests {
    @Test func exampleFileParses() throws {
        let path = exampleConfig("syncd.toml")
        let config = try DaemonConfig.load(path: path, environment: testEnv, checkPaths: false)
        let expected = DaemonConfig(
            file: path,
            daemon: .init(stateDir: "/home/ann/.local/state/syncd",
                          controlSocket: "/home/ann/.local/state/syncd/syncd.sock", logLevel: "info"),
            server: .init(url: "http://127.0.0.1:8417", credentialFile: "/home/ann/.config/syncd/credential"),
            transfer: .init(maxConcurrent: 4, uploadLimit: .zero),
            folders: [.init(id: "docs", path: "/home/ann/Sync/docs", ignore: [".git/", "*.swp", "~$*"],
                            settle: .milliseconds(100), rescanInterval: .seconds(3600), maxDeleteFraction: 0.5)])
        #expect(config == expected)
    }

    @Test func defaults() throws {
        let config = try parseDaemon(minimalDaemon)
        #expect(config.file == daemonFile)
        #expect(config.daemon.stateDir == "/home/ann/.local/state/syncd")
        #expect(config.daemon.controlSocket == "/home/ann/.local/state/syncd/syncd.sock")
        #expect(config.daemon.logLevel == "info")
        #expect(config.transfer == .init(maxConcurrent: 4, uploadLimit: .zero))
        #expect(config.folders == [.init(id: "docs", path: "/srv/docs", ignore: [], settle: .milliseconds(100),
                                         rescanInterval: .seconds(3600), maxDeleteFraction: 0.5)])
    }

    @Test func controlSocketDefaultsUnderStateDir() throws {
        let config = try parseDaemon("[daemon]\nstate_dir = \"$DATA/state\"\n" + minimalDaemon)
        #expect(config.daemon.stateDir == "/data/state")
        #expect(config.daemon.controlSocket == "/data/state/syncd.sock")
    }

    @Test func explicitValues() throws {
        let config = try parseDaemon("""
            [daemon]
            state_dir = "state"
            control_socket = "${HOME}/run/s.sock"
            log_level = "debug"
            [transfer]
            max_concurrent = 64
            upload_limit = "1.5MiB/s"
            """ + "\n" + minimalDaemon + """
            ignore = []
            settle = "0"
            rescan_interval = "30m"
            max_delete_fraction = 1

            [[folder]]
            id = "Photos_2024.v-1"
            path = "~/Pictures"
            max_delete_fraction = 0.05
            """)
        #expect(config.daemon == .init(stateDir: "/etc/syncd/state", controlSocket: "/home/ann/run/s.sock",
                                       logLevel: "debug"))
        #expect(config.transfer == .init(maxConcurrent: 64, uploadLimit: ByteSize(bytes: 1_572_864)))
        #expect(config.folders.map(\.id) == ["docs", "Photos_2024.v-1"])
        #expect(config.folders[0].settle == .zero)
        #expect(config.folders[0].rescanInterval == .seconds(1800))
        #expect(config.folders[0].maxDeleteFraction == 1)
        #expect(config.folders[1].path == "/home/ann/Pictures")
        #expect(config.folders[1].maxDeleteFraction == 0.05)
    }

    @Test func uploadLimitAcceptsPlainSizeAndIntegerBytes() throws {
        let plain = try parseDaemon("[transfer]\nupload_limit = \"10MiB\"\n" + minimalDaemon)
        #expect(plain.transfer.uploadLimit == ByteSize(bytes: 10 << 20))
        let integer = try parseDaemon("[transfer]\nupload_limit = 1000\n" + minimalDaemon)
        #expect(integer.transfer.uploadLimit == ByteSize(bytes: 1000))
    }

    @Test func inlineTablesWork() throws {
        let config = try parseDaemon("""
            daemon = { log_level = "error" }
            server = { url = "https://sync.example:8443/base", credential_file = "/c" }
            folder = [{ id = "a", path = "/a" }, { id = "b", path = "/b" }]
            """)
        #expect(config.daemon.logLevel == "error")
        #expect(config.server.url == "https://sync.example:8443/base")
        #expect(config.folders.map(\.path) == ["/a", "/b"])
    }

    @Test func relativePathsResolveAgainstConfigDirectory() throws {
        try withTempDir { dir in
            try makeDir(dir + "/conf/docs")
            try write("secret", to: dir + "/conf/credential")
            try write("""
                [server]
                url = "http://localhost:8417"
                credential_file = "credential"
                [[folder]]
                id = "docs"
                path = "docs"
                """, to: dir + "/conf/syncd.toml")
            let config = try DaemonConfig.load(path: dir + "/conf/syncd.toml", environment: testEnv)
            #expect(config.server.credentialFile == dir + "/conf/credential")
            #expect(config.folders[0].path == dir + "/conf/docs")
        }
    }

    @Test func checkPathsAcceptsExistingFiles() throws {
        try withTempDir { dir in
            try makeDir(dir + "/a")
            try makeDir(dir + "/b")
            try write("x", to: dir + "/cred")
            let toml = """
                [server]
                url = "http://127.0.0.1:8417"
                credential_file = "$T/cred"
                [[folder]]
                id = "a"
                path = "$T/a"
                [[folder]]
                id = "b"
                path = "${T}/b"
                """
            let config = try DaemonConfig.parse(toml: toml, file: dir + "/s.toml", environment: ["T": dir, "HOME": dir])
            #expect(config.folders.map(\.path) == [dir + "/a", dir + "/b"])
            #expect(config.daemon.stateDir.isEmpty == false)
        }
    }

    /// https anywhere (with an optional ca_file); plain http only to this machine, unless
    /// the config says the network is trusted.
    @Test func serverURLsAndTransportSecurity() throws {
        func server(_ lines: String) throws -> DaemonConfig.Server {
            try parseDaemon("[server]\ncredential_file = \"/c\"\n\(lines)\n[[folder]]\nid = \"a\"\npath = \"/a\"").server
        }
        let https = try server("url = \"https://sync.example.org\"\nca_file = \"/etc/ssl/my-ca.pem\"")
        #expect(https.caFile == "/etc/ssl/my-ca.pem" && https.allowInsecureHTTP == false)
        for url in ["http://127.0.0.1:8417", "http://127.9.8.7", "http://localhost:1", "http://[::1]:8417"] {
            #expect(try server("url = \"\(url)\"").url == url)
        }
        #expect(try server("url = \"http://10.0.0.2\"\nallow_insecure_http = true").allowInsecureHTTP)
        #expect(throws: ConfigError.self) { try server("url = \"http://127.0.0.1.example.org\"") }
    }

    @Test func aMissingCAFileIsNamed() throws {
        try withTempDir { dir in
            try makeDir(dir + "/a")
            try write("x", to: dir + "/cred")
            let toml = """
                [server]
                url = "https://sync.example.org"
                credential_file = "\(dir)/cred"
                ca_file = "\(dir)/missing-ca.pem"
                [[folder]]
                id = "a"
                path = "\(dir)/a"
                """
            expectConfigError(file: dir + "/s.toml", key: "server.ca_file", reason: "missing-ca.pem is not a readable regular file") {
                _ = try DaemonConfig.parse(toml: toml, file: dir + "/s.toml", environment: ["HOME": dir])
            }
        }
    }
}
