import Testing
@testable import SyncConfig

/// Where the programs look when no path is given (XDG for the user's programs,
/// system-service places for the server).
@Suite struct StandardPathsTests {
    @Test func daemonPathsFollowXDG() {
        let env = ["HOME": "/home/ann", "XDG_CONFIG_HOME": "/cfg/", "XDG_STATE_HOME": "/st"]
        #expect(StandardPaths.daemonConfig(environment: env) == "/cfg/syncd/syncd.toml")
        #expect(StandardPaths.daemonStateDir(environment: env) == "/st/syncd")
        #expect(StandardPaths.daemonSocket(environment: env) == "/st/syncd/syncd.sock")
    }

    @Test func unsetOrRelativeXDGFallsBackUnderHome() {
        for env in [["HOME": "/home/ann"], ["HOME": "/home/ann", "XDG_CONFIG_HOME": "cfg", "XDG_STATE_HOME": ""]] {
            #expect(StandardPaths.daemonConfig(environment: env) == "/home/ann/.config/syncd/syncd.toml")
            #expect(StandardPaths.daemonStateDir(environment: env) == "/home/ann/.local/state/syncd")
        }
        #expect(StandardPaths.daemonStateDir(environment: [:]) == "~/.local/state/syncd")
    }

    @Test func theDaemonConfigsDefaultStateDirIsXDGs() throws {
        let env = ["HOME": "/home/ann", "XDG_STATE_HOME": "/var/tmp/state"]
        let config = try DaemonConfig.parse(toml: minimalDaemon, file: daemonFile, environment: env, checkPaths: false)
        #expect(config.daemon.stateDir == "/var/tmp/state/syncd")
        #expect(config.daemon.controlSocket == "/var/tmp/state/syncd/syncd.sock")
    }

    @Test func serverPathsSuitASystemService() {
        #expect(StandardPaths.serverConfig(environment: [:]) == "/etc/sync-server/sync-server.toml")
        #expect(StandardPaths.serverConfig(environment: ["CONFIGURATION_DIRECTORY": "/etc/x:/etc/y"]) == "/etc/x/sync-server.toml")
        #expect(StandardPaths.serverDataDir(environment: [:], systemService: true) == "/var/lib/sync-server")
        #expect(StandardPaths.serverDataDir(environment: [:], systemService: false) == "~/.local/share/sync-server")
        #expect(StandardPaths.serverDataDir(environment: ["STATE_DIRECTORY": "/var/lib/s"], systemService: false) == "/var/lib/s")
    }

    @Test func theSystemConfigMeansTheSystemService() {
        #expect(StandardPaths.isSystemService(configFile: "/etc/sync-server/sync-server.toml", uid: 998))
        #expect(StandardPaths.isSystemService(configFile: "/home/ann/s.toml", uid: 0))
        #expect(!StandardPaths.isSystemService(configFile: "/home/ann/s.toml", uid: 1000))
    }

    @Test func theServerConfigsDefaultDataDirDependsOnWhoRunsIt() throws {
        let env = ["HOME": "/home/ann"]
        #expect(try ServerConfig.parse(toml: "", file: serverFile, environment: env, systemService: true).dataDir == "/var/lib/sync-server")
        #expect(try ServerConfig.parse(toml: "", file: serverFile, environment: env, systemService: false).dataDir
            == "/home/ann/.local/share/sync-server")
    }
}
