import Foundation
import SyncControl
import Testing
import TestSupport

/// `syncd` and `syncctl status` work with no flags: the config is found under
/// `$XDG_CONFIG_HOME`, the state (and the control socket) under `$XDG_STATE_HOME`.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct DefaultPathsTests {
    @Test func syncdAndSyncctlNeedNoFlags() async throws {
        let tmp = try TemporaryDirectory("xdg")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "laptop")
        try await server.start()
        defer { server.stop() }

        let home = try tmp.sub("home")
        let folder = try tmp.sub("folder")
        let config = home + "/cfg/syncd/syncd.toml"
        try FileManager.default.createDirectory(atPath: home + "/cfg/syncd", withIntermediateDirectories: true)
        try writeFile(home + "/credential", credential + "\n")
        chmod(home + "/credential", 0o600)
        // No state_dir, no control_socket: both come from XDG_STATE_HOME.
        try writeFile(config, """
            [server]
            url = "\(server.url)"
            credential_file = "\(home)/credential"
            [[folder]]
            id = "docs"
            path = "\(folder)"
            """)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["XDG_CONFIG_HOME"] = home + "/cfg"
        environment["XDG_STATE_HOME"] = home + "/state"

        let syncd = try Child.spawn(try Binaries.path("syncd"), [], environment: environment)
        defer { syncd.end(hard: false) }

        let socket = home + "/state/syncd/syncd.sock"
        try await eventually("syncd listens under XDG_STATE_HOME") { FileManager.default.fileExists(atPath: socket) }
        try writeFile(folder + "/a.txt", "hello\n")
        var last = ""
        try await eventually("syncctl, with no flags, shows the folder idle with a.txt sent") {
            let run = try await Child.capture(try Binaries.path("syncctl"), ["status", "--json"], environment: environment)
            last = run.out + run.err
            guard run.status == 0, let report = try? JSONDecoder().decode(StatusReport.self, from: Data(run.out.utf8)),
                let docs = report.folders.first(where: { $0.id == "docs" })
            else { return false }
            return docs.state == .idle && docs.remoteCursor >= 1
        }
        #expect(last.contains("\"docs\""), "\(last)")
    }
}
