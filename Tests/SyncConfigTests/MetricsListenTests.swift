import Testing
@testable import SyncConfig

/// `[daemon] metrics_listen`: parsed, validated, and named when a reload finds it changed.
@Suite struct MetricsListenTests {
    @Test func offByDefault() throws {
        #expect(try parseDaemon(minimalDaemon).daemon.metricsListen == nil)
    }

    static let good: [(String, String, Int)] = [
        ("127.0.0.1:9417", "127.0.0.1", 9417),
        ("localhost:9417", "127.0.0.1", 9417),
        ("[::1]:9100", "::1", 9100),
        ("192.168.1.20:9417", "192.168.1.20", 9417),
        ("0.0.0.0:9417", "0.0.0.0", 9417),
    ]

    @Test(arguments: good)
    func parses(text: String, host: String, port: Int) throws {
        let config = try parseDaemon("[daemon]\nmetrics_listen = \"\(text)\"\n" + minimalDaemon)
        #expect(config.daemon.metricsListen == .init(host: host, port: port))
    }

    @Test func loopbackIsKnown() {
        #expect(DaemonConfig.MetricsListen(host: "127.0.0.1", port: 9417).isLoopback)
        #expect(DaemonConfig.MetricsListen(host: "::1", port: 9417).isLoopback)
        #expect(!DaemonConfig.MetricsListen(host: "0.0.0.0", port: 9417).isLoopback)
        #expect(DaemonConfig.MetricsListen(host: "::1", port: 9100).description == "[::1]:9100")
    }

    static let bad: [BadConfig] = [
        BadConfig("[daemon]\nmetrics_listen = 9417\n" + minimalDaemon, key: "daemon.metrics_listen",
                  reason: "127.0.0.1:9417"),
        BadConfig("[daemon]\nmetrics_listen = \"9417\"\n" + minimalDaemon, key: "daemon.metrics_listen",
                  reason: "missing \":PORT\""),
        BadConfig("[daemon]\nmetrics_listen = \"127.0.0.1:\"\n" + minimalDaemon, key: "daemon.metrics_listen",
                  reason: "is not a number"),
        BadConfig("[daemon]\nmetrics_listen = \"127.0.0.1:70000\"\n" + minimalDaemon, key: "daemon.metrics_listen",
                  reason: "out of range"),
        BadConfig("[daemon]\nmetrics_listen = \"127.0.0.1:0\"\n" + minimalDaemon, key: "daemon.metrics_listen",
                  reason: "port 0 would pick a different port"),
        BadConfig("[daemon]\nmetrics_listen = \"metrics.example.org:9417\"\n" + minimalDaemon,
                  key: "daemon.metrics_listen", reason: "\"metrics.example.org\" is a host name"),
        BadConfig("[daemon]\nmetrics_listen = \"::1:9417\"\n" + minimalDaemon, key: "daemon.metrics_listen",
                  reason: "must be in brackets"),
        BadConfig("[daemon]\nmetrics_listen = \"300.1.1.1:9417\"\n" + minimalDaemon, key: "daemon.metrics_listen",
                  reason: "is a host name"),
        BadConfig("[daemon]\nmetrics_listn = \"127.0.0.1:9417\"\n" + minimalDaemon, key: "daemon.metrics_listn",
                  reason: "metrics_listen"),
    ]

    @Test(arguments: bad)
    func reportsFileKeyAndReason(_ bad: BadConfig) {
        expectConfigError(file: daemonFile, key: bad.key, reason: bad.reason) {
            _ = try parseDaemon(bad.toml)
        }
    }

    @Test func aReloadNeedsARestartForIt() throws {
        let old = try parseDaemon(minimalDaemon)
        let new = try parseDaemon("[daemon]\nmetrics_listen = \"127.0.0.1:9417\"\n" + minimalDaemon)
        let change = ConfigChange(from: old, to: new)
        #expect(change.needsRestart == ["daemon.metrics_listen"])
        #expect(change.effective.daemon.metricsListen == nil)
    }
}
