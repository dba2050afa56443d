import Foundation
import Testing
@testable import SyncConfig

/// Every error names the file, the dotted key and the reason.
@Suite struct DaemonConfigErrorTests {
    static let bad: [BadConfig] = [
        // TOML syntax
        BadConfig("[server\nurl = 1", key: "", reason: "TOML syntax error at line 1"),
        BadConfig(minimalDaemon + "settle = ", key: "", reason: "line 8, column 10"),
        // missing required keys and tables
        BadConfig("[[folder]]\nid = \"a\"\npath = \"/a\"", key: "server", reason: "missing required table [server]"),
        BadConfig("[server]\ncredential_file = \"/c\"\n[[folder]]\nid = \"a\"\npath = \"/a\"",
                  key: "server.url", reason: "missing required key"),
        BadConfig("[server]\nurl = \"https://h\"\n[[folder]]\nid = \"a\"\npath = \"/a\"",
                  key: "server.credential_file", reason: "missing required key"),
        BadConfig("[server]\nurl = \"https://h\"\ncredential_file = \"/c\"", key: "folder",
                  reason: "at least one [[folder]]"),
        BadConfig("folder = []\n[server]\nurl = \"https://h\"\ncredential_file = \"/c\"", key: "folder",
                  reason: "at least one [[folder]]"),
        BadConfig(minimalDaemon + "[[folder]]\npath = \"/b\"", key: "folder[1].id", reason: "missing required key"),
        BadConfig(minimalDaemon + "[[folder]]\nid = \"b\"", key: "folder[1].path", reason: "missing required key"),
        // wrong types
        BadConfig("[transfer]\nmax_concurrent = \"4\"\n" + minimalDaemon, key: "transfer.max_concurrent",
                  reason: "expected an integer, got string"),
        BadConfig("[transfer]\nmax_concurrent = 4.0\n" + minimalDaemon, key: "transfer.max_concurrent",
                  reason: "expected an integer, got floating-point number"),
        BadConfig("daemon = 5\n" + minimalDaemon, key: "daemon", reason: "expected a table ([daemon]), got integer"),
        BadConfig("[daemon]\nlog_level = true\n" + minimalDaemon, key: "daemon.log_level",
                  reason: "expected a string, got boolean"),
        BadConfig("[daemon]\nstate_dir = [\"/a\"]\n" + minimalDaemon, key: "daemon.state_dir",
                  reason: "expected a path string, got array"),
        BadConfig(minimalDaemon + "ignore = \"*.swp\"", key: "folder[0].ignore",
                  reason: "expected an array of strings, got string"),
        BadConfig(minimalDaemon + "ignore = [\"a\", 2]", key: "folder[0].ignore", reason: "expected an array of strings, got integer at index 1"),
        BadConfig(minimalDaemon + "settle = 100", key: "folder[0].settle",
                  reason: "expected a duration string such as \"100ms\""),
        BadConfig(minimalDaemon + "max_delete_fraction = \"half\"", key: "folder[0].max_delete_fraction",
                  reason: "expected a number, got string"),
        BadConfig(minimalDaemon + "id = 1", key: "", reason: "cannot redefine"),
        BadConfig("[server]\nurl = \"https://h\"\ncredential_file = \"/c\"\n[folder]\nid = \"a\"", key: "folder",
                  reason: "expected an array of tables ([[folder]]), got table"),
        BadConfig("folder = [1]\n[server]\nurl = \"https://h\"\ncredential_file = \"/c\"", key: "folder[0]",
                  reason: "expected a table ([[folder]]), got integer"),
        BadConfig("[transfer]\nupload_limit = true\n" + minimalDaemon, key: "transfer.upload_limit",
                  reason: "got boolean"),
        // unknown keys, with suggestions
        BadConfig("[daemon]\nstat_dir = \"/s\"\n" + minimalDaemon, key: "daemon.stat_dir",
                  reason: "unknown key in [daemon]; did you mean \"state_dir\"?"),
        BadConfig(minimalDaemon + "[folders]\nid = \"x\"", key: "folders",
                  reason: "unknown key at the top level; did you mean \"folder\"?"),
        BadConfig("[logging]\nlevel = 1\n" + minimalDaemon, key: "logging",
                  reason: "known keys: daemon, server, transfer, folder"),
        BadConfig(minimalDaemon + "[[folder]]\nid = \"b\"\npath = \"/b\"\nrescan = \"1h\"", key: "folder[1].rescan",
                  reason: "unknown key in folder[1] ([[folder]]); known keys: id, path"),
        BadConfig(minimalDaemon + "setle = \"1s\"", key: "folder[0].setle", reason: "did you mean \"settle\"?"),
        BadConfig("[server.tls]\n" + minimalDaemon, key: "server.tls", reason: "unknown key in [server]"),
        BadConfig("[daemon]\n\"log level\" = \"x\"\n" + minimalDaemon, key: "daemon.\"log level\"",
                  reason: "did you mean \"log_level\"?"),
        // bad durations and sizes
        BadConfig(minimalDaemon + "settle = \"100 ms\"", key: "folder[0].settle", reason: "invalid duration \"100 ms\""),
        BadConfig("[daemon]\ntrash_retention = \"a month\"\n" + minimalDaemon, key: "daemon.trash_retention",
                  reason: "invalid duration \"a month\""),
        BadConfig(minimalDaemon + "rescan_interval = \"-1h\"", key: "folder[0].rescan_interval",
                  reason: "invalid duration"),
        BadConfig(minimalDaemon + "rescan_interval = \"1w\"", key: "folder[0].rescan_interval",
                  reason: "ns, us, ms, s, m, h, d"),
        BadConfig("[transfer]\nupload_limit = \"10mib/s\"\n" + minimalDaemon, key: "transfer.upload_limit",
                  reason: "invalid size \"10mib/s\""),
        BadConfig("[transfer]\nupload_limit = \"fast\"\n" + minimalDaemon, key: "transfer.upload_limit",
                  reason: "invalid size"),
        // bad enum values
        BadConfig("[daemon]\nlog_level = \"verbose\"\n" + minimalDaemon, key: "daemon.log_level",
                  reason: "expected one of trace, debug, info, notice, warning, error, critical, got \"verbose\""),
        BadConfig("[daemon]\nlog_level = \"debg\"\n" + minimalDaemon, key: "daemon.log_level",
                  reason: "did you mean \"debug\"?"),
        // out of range
        BadConfig("[transfer]\nmax_concurrent = 0\n" + minimalDaemon, key: "transfer.max_concurrent",
                  reason: "out of range: expected an integer from 1 to 64, got 0"),
        BadConfig("[transfer]\nmax_concurrent = 65\n" + minimalDaemon, key: "transfer.max_concurrent",
                  reason: "out of range"),
        BadConfig("[transfer]\nupload_limit = -1\n" + minimalDaemon, key: "transfer.upload_limit",
                  reason: "cannot be negative"),
        BadConfig(minimalDaemon + "max_delete_fraction = 0", key: "folder[0].max_delete_fraction",
                  reason: "out of range"),
        BadConfig(minimalDaemon + "max_delete_fraction = 1.5", key: "folder[0].max_delete_fraction",
                  reason: "at most 1"),
        BadConfig(minimalDaemon + "max_delete_fraction = nan", key: "folder[0].max_delete_fraction",
                  reason: "out of range"),
        BadConfig(minimalDaemon + "rescan_interval = \"0\"", key: "folder[0].rescan_interval",
                  reason: "must be greater than 0"),
        // server URL and folder id
        BadConfig("[server]\nurl = \"ftp://h\"\ncredential_file = \"/c\"\n[[folder]]\nid = \"a\"\npath = \"/a\"",
                  key: "server.url", reason: "scheme \"ftp\" is not supported"),
        // The credential never goes in clear text beyond this machine unless the config says so.
        BadConfig("[server]\nurl = \"http://sync.example.org\"\ncredential_file = \"/c\"\n[[folder]]\nid = \"a\"\npath = \"/a\"",
                  key: "server.url", reason: "refusing to send the device credential and your files in clear text to sync.example.org"),
        BadConfig("[server]\nurl = \"http://127.0.0.1:1\"\nca_file = \"/ca.pem\"\ncredential_file = \"/c\"\n[[folder]]\nid = \"a\"\npath = \"/a\"",
                  key: "server.ca_file", reason: "only used with an https:// url"),
        BadConfig("[server]\nurl = \"http://h\"\nallow_insecure_http = \"yes\"\ncredential_file = \"/c\"\n[[folder]]\nid = \"a\"\npath = \"/a\"",
                  key: "server.allow_insecure_http", reason: "true or false"),
        BadConfig("[server]\nurl = \"127.0.0.1:8417\"\ncredential_file = \"/c\"\n[[folder]]\nid = \"a\"\npath = \"/a\"",
                  key: "server.url", reason: "invalid server URL"),
        BadConfig("[server]\nurl = \"http://\"\ncredential_file = \"/c\"\n[[folder]]\nid = \"a\"\npath = \"/a\"",
                  key: "server.url", reason: "no host"),
        BadConfig("[server]\nurl = \"http://h:70000\"\ncredential_file = \"/c\"\n[[folder]]\nid = \"a\"\npath = \"/a\"",
                  key: "server.url", reason: "out of range"),
        BadConfig("[server]\nurl = \"http://u:p@h\"\ncredential_file = \"/c\"\n[[folder]]\nid = \"a\"\npath = \"/a\"",
                  key: "server.url", reason: "user information"),
        BadConfig(minimalDaemon + "[[folder]]\nid = \"my docs\"\npath = \"/b\"", key: "folder[1].id",
                  reason: "character \" \" is not allowed"),
        BadConfig(minimalDaemon + "[[folder]]\nid = \"\"\npath = \"/b\"", key: "folder[1].id",
                  reason: "1 to 64 characters"),
        BadConfig(minimalDaemon + "[[folder]]\nid = \"\(String(repeating: "x", count: 65))\"\npath = \"/b\"",
                  key: "folder[1].id", reason: "got 65"),
        BadConfig(minimalDaemon + "[[folder]]\nid = \"..\"\npath = \"/b\"", key: "folder[1].id", reason: "reserved"),
        // cross-key rules
        BadConfig(minimalDaemon + "[[folder]]\nid = \"docs\"\npath = \"/b\"", key: "folder[1].id",
                  reason: "duplicate folder id \"docs\" (also used by folder[0])"),
        BadConfig(minimalDaemon + "[[folder]]\nid = \"sub\"\npath = \"/srv/docs/sub\"", key: "folder[1].path",
                  reason: "folder \"sub\" path /srv/docs/sub is inside folder[0] \"docs\" path /srv/docs"),
        BadConfig(minimalDaemon + "[[folder]]\nid = \"all\"\npath = \"/srv\"", key: "folder[1].path",
                  reason: "path /srv contains folder[0] \"docs\" path /srv/docs"),
        BadConfig(minimalDaemon + "[[folder]]\nid = \"same\"\npath = \"/srv/x/../docs/\"", key: "folder[1].path",
                  reason: "is the same as folder[0]"),
        BadConfig("[daemon]\nstate_dir = \"/srv/docs/.state\"\n" + minimalDaemon, key: "daemon.state_dir",
                  reason: "inside folder[0] \"docs\""),
        BadConfig("[daemon]\ncontrol_socket = \"/\(String(repeating: "s", count: 120))\"\n" + minimalDaemon,
                  key: "daemon.control_socket", reason: "at most 107"),
        // path expansion
        BadConfig(minimalDaemon.replacingOccurrences(of: "/srv/docs", with: "$NOPE/docs"), key: "folder[0].path",
                  reason: "cannot expand path \"$NOPE/docs\": environment variable NOPE is not set"),
        BadConfig("[daemon]\nstate_dir = \"~root/x\"\n" + minimalDaemon, key: "daemon.state_dir",
                  reason: "\"~root\" is not supported"),
    ]

    @Test(arguments: bad)
    func reportsFileKeyAndReason(_ bad: BadConfig) {
        expectConfigError(file: daemonFile, key: bad.key, reason: bad.reason) {
            _ = try parseDaemon(bad.toml)
        }
    }

    @Test func defaultStateDirNeedsHome() {
        expectConfigError(file: daemonFile, key: "daemon.state_dir", reason: "cannot expand the default") {
            _ = try parseDaemon(minimalDaemon, env: [:])
        }
    }

    @Test func descriptionIsOneLine() {
        let error = ConfigError(file: "/etc/s.toml", key: "folder[1].settle", reason: "bad\nvalue")
        #expect(error.description == "/etc/s.toml: folder[1].settle: bad value")
        #expect(ConfigError(file: "f", key: "", reason: "r").description == "f: r")
    }
}
