import Foundation
import SyncControl
import TestSupport

/// A real `syncd` process syncing one folder, with its own state dir.
final class DaemonProcess: @unchecked Sendable {
    let dir: String
    let folderPath: String
    let folderID: String
    let configPath: String
    let socketPath: String
    private var process: Child?

    /// `extraServerConfig`: more keys of the `[server]` table (e.g. `ca_file`); `extraDaemonConfig`
    /// of the `[daemon]` table (e.g. `metrics_listen`). `logLevel` "trace" logs each path's
    /// story (events, plans, push fates), kept in `syncd.log` with a failed test's state.
    init(
        dir: String, folderID: String, serverURL: String, credential: String, extraFolderConfig: String = "",
        extraServerConfig: String = "", extraDaemonConfig: String = "", logLevel: String = "debug"
    ) throws {
        self.dir = dir
        self.folderID = folderID
        folderPath = dir + "/folder"
        socketPath = dir + "/state/syncd.sock"
        configPath = dir + "/syncd.toml"
        try FileManager.default.createDirectory(atPath: folderPath, withIntermediateDirectories: true)
        let credentialPath = dir + "/credential"
        try writeFile(credentialPath, credential + "\n")
        chmod(credentialPath, 0o600)
        try writeFile(configPath, """
            [daemon]
            state_dir = "\(dir)/state"
            control_socket = "\(socketPath)"
            log_level = "\(logLevel)"
            \(extraDaemonConfig)
            [server]
            url = "\(serverURL)"
            credential_file = "\(credentialPath)"
            \(extraServerConfig)
            [[folder]]
            id = "\(folderID)"
            path = "\(folderPath)"
            settle = "50ms"
            \(extraFolderConfig)
            """)
    }

    var control: ControlClient { ControlClient(socketPath: socketPath) }

    /// The running process's id (0 when it is not running).
    var pid: Int32 { process?.processIdentifier ?? 0 }

    /// `inotifyWatchLimit` runs the daemon in its own user namespace whose
    /// `max_inotify_watches` is that low: the kernel's real ENOSPC, for this process only.
    /// `environment`: extra variables (e.g. a crash point, see `CrashPoint` in SyncDaemon).
    func start(waitUntilRunning: Bool = true, inotifyWatchLimit: Int? = nil, environment: [String: String] = [:]) async throws {
        let syncd = try Binaries.path("syncd")
        let program: String, arguments: [String]
        if let limit = inotifyWatchLimit {
            program = "/usr/bin/unshare"
            arguments = [
                "--user", "--map-root-user", "sh", "-c",
                #"echo \#(limit) > /proc/sys/user/max_inotify_watches && exec "$0" --config "$1""#, syncd, configPath,
            ]
        } else {
            program = syncd
            arguments = ["--config", configPath]
        }
        // The log is appended to across restarts.
        let p = try Child.spawn(
            program, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
            stderr: .file(dir + "/syncd.log"))
        process = p
        guard waitUntilRunning else { return }
        do {
            try await eventually("syncd answers on its control socket") {
                guard let folder = try await self.status() else { return false }
                return folder.state != .starting && folder.state != .scanning
            }
        } catch {
            throw TestFailure("\(error)\n\(processState)\n--- log tail:\n\(self.log.suffix(2500))")
        }
    }

    func status() async throws -> FolderStatus? {
        try await control.status().folders.first { $0.id == folderID }
    }

    /// Waits for the process to end by itself (a crash point fired); true if it did.
    func waitForExit(timeout: Duration) async throws -> Bool {
        guard let p = process else { return true }
        do {
            try await eventually("syncd exits", timeout: timeout) { !p.isRunning }
        } catch {
            return false
        }
        process = nil
        return true
    }

    /// Stops it the hard way: no chance to tidy up.
    func kill9() {
        if process?.end(hard: true) == true { process = nil }
    }

    func stop() {
        if process?.end(hard: false) == true { process = nil }
    }

    /// `kill9()` and `stop()` from async code (holding no thread while it ends).
    func kill9() async {
        if await process?.end(hard: true) == true { process = nil }
    }

    func stop() async {
        if await process?.end(hard: false) == true { process = nil }
    }

    /// Runs the real `syncctl` against this daemon: (exit status, stdout, stderr).
    func syncctl(_ arguments: String...) async throws -> (status: Int32, out: String, err: String) {
        try await Child.capture(try Binaries.path("syncctl"), ["--socket", socketPath] + arguments)
    }

    /// Waits until the folder is idle; on timeout the error shows the last status and the log tail.
    func waitUntilIdle(timeout: Duration = .seconds(30)) async throws {
        try await waitUntil(.idle, timeout: timeout)
    }

    /// Waits until the folder's state is `state`; on timeout the error shows the last status,
    /// whether the process still runs (or how it ended) and the log tail.
    func waitUntil(_ state: FolderState, timeout: Duration = .seconds(60)) async throws {
        var last: FolderStatus?
        do {
            try await eventually("\(folderID) \(state)", timeout: timeout) {
                last = try await status()
                return last?.state == state
            }
        } catch {
            let shown = last.map { "state \($0.state), pending up \($0.pendingUploads) down \($0.pendingDownloads), errors \($0.errors)" }
            throw TestFailure("\(error)\nlast status: \(shown ?? "none")\n\(processState)\n--- log tail:\n\(log.suffix(2500))")
        }
    }

    /// How many inotify watches the running daemon holds (from /proc fdinfo).
    func inotifyWatchCount() throws -> Int {
        guard let pid = process?.processIdentifier else { return 0 }
        let fdDir = "/proc/\(pid)/fd"
        var count = 0
        for fd in try FileManager.default.contentsOfDirectory(atPath: fdDir) {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDir)/\(fd)"),
                target.contains("inotify")
            else { continue }
            let info = try String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8)
            count += info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
        }
        return count
    }

    var isRunning: Bool { process?.isRunning ?? false }

    /// How the process ended, or where each of its threads waits in the kernel (for a
    /// daemon that does not answer: a start that hangs in an fsync shows here).
    var processState: String {
        guard let p = process else { return "syncd not started" }
        guard p.isRunning else { return "syncd exited with status \(p.terminationStatus)" }
        let tasks = "/proc/\(p.processIdentifier)/task"
        let waits = ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).map { tid in
            let wchan = (try? String(contentsOfFile: "\(tasks)/\(tid)/wchan", encoding: .utf8)) ?? "?"
            let stat = (try? String(contentsOfFile: "\(tasks)/\(tid)/stat", encoding: .utf8)) ?? ""
            let state = stat.split(separator: ")").last?.split(separator: " ").first ?? "?"
            return "\(state) \(wchan)"
        }
        let counted = Dictionary(waits.map { ($0, 1) }, uniquingKeysWith: +).sorted { $0.value > $1.value }
        return "syncd still running (pid \(p.processIdentifier)); threads: " + counted.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }

    var terminationStatus: Int32? { process.flatMap { $0.isRunning ? nil : $0.terminationStatus } }

    var log: String { logText(atPath: dir + "/syncd.log") }

    func path(_ relative: String) -> String { folderPath + "/" + relative }
}
