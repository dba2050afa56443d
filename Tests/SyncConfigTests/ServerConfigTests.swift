import Testing
@testable import SyncConfig

@Suite struct ServerConfigTests {
    @Test func exampleFileParses() throws {
        let path = exampleConfig("sync-server.toml")
        let config = try ServerConfig.load(path: path, environment: testEnv, systemService: false)
        #expect(config == ServerConfig(file: path, host: "127.0.0.1", port: 8417,
                                       dataDir: "/home/ann/.local/share/sync-server",
                                       metadata: "sqlite", blobs: "filesystem", retention: .seconds(30 * 86_400)))
    }

    @Test func emptyFileGivesDefaults() throws {
        let config = try parseServer("")
        #expect(config == ServerConfig(file: serverFile, host: "127.0.0.1", port: 8417,
                                       dataDir: "/home/ann/.local/share/sync-server",
                                       metadata: "sqlite", blobs: "filesystem", retention: .seconds(2_592_000)))
    }

    @Test func explicitValues() throws {
        let config = try parseServer("""
            [server]
            listen = "[::1]:0"
            data_dir = "${DATA}/server"
            [storage]
            retention = "12h"
            compact_below = 0.25
            """)
        #expect(config.compactBelow == 0.25)
        #expect(try parseServer("").compactBelow == 0.5)
        #expect(try parseServer("[storage]\ncompact_below = 0").compactBelow == 0)
        #expect(config.host == "::1")
        #expect(config.port == 0)
        #expect(config.dataDir == "/data/server")
        #expect(config.retention == .seconds(43_200))
    }

    static let listens: [(String, String, Int)] = [
        ("127.0.0.1:8417", "127.0.0.1", 8417), ("0.0.0.0:0", "0.0.0.0", 0), ("localhost:65535", "localhost", 65535),
        ("[::1]:8417", "::1", 8417), ("[::]:80", "::", 80), ("[fe80::1:2]:443", "fe80::1:2", 443),
        ("[::ffff:127.0.0.1]:9", "::ffff:127.0.0.1", 9),
    ]

    @Test(arguments: listens)
    func parsesListen(listen: String, host: String, port: Int) throws {
        let config = try parseServer("[server]\nlisten = \"\(listen)\"")
        #expect(config.host == host)
        #expect(config.port == port)
    }

    static let badListens: [(String, String)] = [
        ("127.0.0.1", "missing \":PORT\""), ("127.0.0.1:", "port \"\" is not a number"),
        ("127.0.0.1:65536", "port 65536 is out of range 0-65535"), ("127.0.0.1:-1", "is not a number"),
        ("127.0.0.1:99999999999999999999", "is not a number"), ("127.0.0.1:http", "is not a number"),
        ("::1:8417", "must be in brackets"), ("[::1]8417", "missing \":PORT\" after \"]\""),
        ("[::1", "missing \"]\""), (":8417", "is not a host name"), ("[zz]:80", "is not an IPv6 address"),
        ("my host:80", "is not a host name"), ("", "missing \":PORT\""),
    ]

    @Test(arguments: badListens)
    func rejectsBadListen(listen: String, reason: String) {
        expectConfigError(file: serverFile, key: "server.listen", reason: reason) {
            _ = try parseServer("[server]\nlisten = \"\(listen)\"")
        }
    }

    static let bad: [BadConfig] = [
        BadConfig("[server]\nlisten = 8417", key: "server.listen", reason: "expected a string such as \"127.0.0.1:8417\", got integer"),
        BadConfig("[storage]\npassword_file = \"/etc/pw\"", key: "storage.password_file",
                  reason: "is the PostgreSQL password; it needs metadata = \"postgres://USER@HOST/DATABASE\""),
        BadConfig("[storage]\nmetadata = \"sqlit\"", key: "storage.metadata", reason: "did you mean \"sqlite\"?"),
        BadConfig("[storage]\nmetadata = \"mysql\"", key: "storage.metadata", reason: "expected one of sqlite, got \"mysql\""),
        BadConfig("[storage]\nblobs = \"s3://bucket/prefix\"", key: "storage.s3", reason: "no credentials for s3://bucket/prefix"),
        BadConfig("[storage]\nblobs = \"filesystem\"\n[storage.s3]\nregion = \"x\"", key: "storage.s3",
                  reason: "is set but blobs is \"filesystem\""),
        BadConfig("[storage]\nblobs = \"s3://b1/p\"\n[storage.s3]\nendpoint = \"ftp://h\"", key: "storage.s3.endpoint",
                  reason: "invalid endpoint \"ftp://h\""),
        BadConfig("[storage]\nblobs = \"s3://b1/p\"\n[storage.s3]\nendpont = \"http://h\"", key: "storage.s3.endpont",
                  reason: "did you mean \"endpoint\"?"),
        BadConfig("[storage]\nblobs = \"disk\"", key: "storage.blobs", reason: "expected one of filesystem"),
        BadConfig("[storage]\nretention = \"30 days\"", key: "storage.retention", reason: "invalid duration \"30 days\""),
        BadConfig("[storage]\nretention = 30", key: "storage.retention", reason: "got integer"),
        BadConfig("[storage]\nretension = \"1d\"", key: "storage.retension", reason: "did you mean \"retention\"?"),
        BadConfig("[storage]\ncompact_below = 1.5", key: "storage.compact_below",
                  reason: "out of range: expected a number from 0 to 1 (e.g. 0.5; 0 rewrites no pack), got 1.5"),
        BadConfig("[storage]\ncompact_below = \"50%\"", key: "storage.compact_below", reason: "expected a number, got string"),
        BadConfig("[server]\ndatadir = \"/x\"", key: "server.datadir", reason: "did you mean \"data_dir\"?"),
        BadConfig("[daemon]\nlog_level = \"info\"", key: "daemon", reason: "unknown key at the top level; known keys: server, storage"),
        BadConfig("storage = \"sqlite\"", key: "storage", reason: "expected a table ([storage]), got string"),
        BadConfig("[server]\ndata_dir = \"$NOPE\"", key: "server.data_dir", reason: "environment variable NOPE is not set"),
        BadConfig("[server]\nlisten = \"a:1\"\nlisten = \"b:2\"", key: "", reason: "TOML syntax error at line 3"),
    ]

    @Test(arguments: bad)
    func reportsFileKeyAndReason(_ bad: BadConfig) {
        expectConfigError(file: serverFile, key: bad.key, reason: bad.reason) {
            _ = try parseServer(bad.toml)
        }
    }

    @Test func aPostgresMetadataURLAndItsPasswordFileAreRead() throws {
        let config = try parseServer(
            "[server]\ndata_dir = \"/srv/sync\"\n[storage]\nmetadata = \"postgres://sync@db:5432/meta\"\npassword_file = \"pw\"")
        #expect(config.metadata == "postgres://sync@db:5432/meta")
        #expect(config.passwordFile?.hasSuffix("/pw") == true && config.passwordFile?.hasPrefix("/") == true, "relative to the file")
    }

    @Test func defaultDataDirNeedsHome() {
        expectConfigError(file: serverFile, key: "server.data_dir", reason: "cannot expand the default") {
            _ = try parseServer("", env: [:])
        }
    }
}
