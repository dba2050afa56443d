import Foundation
import ServiceSupport
import Testing
import TestSupport

/// `Type=notify` under systemd, with the test playing systemd: both programs say
/// READY=1 once they serve, ping the watchdog at half `WATCHDOG_USEC`, and say
/// STOPPING=1 when SIGTERM begins a graceful stop, RELOADING=1 and READY=1 around a SIGHUP reload.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct SystemdNotifyTests {
    static let watchdog = ["WATCHDOG_USEC": "200000"]

    @Test func serverSaysReadyPingsAndStopping() async throws {
        let tmp = try TemporaryDirectory("notify-server")
        defer { tmp.remove() }
        let listener = try NotifyListener(path: tmp.path + "/notify")
        let server = try ServerProcess(dir: try tmp.sub("server"))
        try await server.start(environment: ["NOTIFY_SOCKET": listener.path].merging(Self.watchdog) { a, _ in a })
        try await listener.wait(for: "READY=1")
        let ready = listener.messages.first { $0.contains("READY=1") }
        #expect(ready?.contains("STATUS=listening on 127.0.0.1:\(server.port)") == true, "\(listener.messages)")
        try await listener.wait(for: "WATCHDOG=1", times: 3)
        #expect(listener.count("STOPPING=1") == 0)
        await server.stop()
        try await listener.wait(for: "STOPPING=1")
    }

    @Test func daemonSaysReadyOnceSyncctlCanReachIt() async throws {
        let rig = try await Rig.start("notify-daemon", startDaemon: false)
        defer { rig.stop() }
        let listener = try NotifyListener(path: rig.tmp.path + "/notify")
        try await rig.daemon.start(
            waitUntilRunning: false, environment: ["NOTIFY_SOCKET": listener.path].merging(Self.watchdog) { a, _ in a })
        try await listener.wait(for: "READY=1")
        // Ready means the control socket answers.
        #expect(try await rig.daemon.status() != nil)
        try await listener.wait(for: "WATCHDOG=1", times: 3)
        await rig.daemon.stop()
        try await listener.wait(for: "STOPPING=1")
    }

    /// SIGHUP: RELOADING=1 (with MONOTONIC_USEC, which systemd wants) before the reload,
    /// READY=1 after it, from both programs.
    @Test func bothSayReloadingThenReadyAroundASighup() async throws {
        let rig = try await Rig.start("notify-reload", startDaemon: false)
        defer { rig.stop() }
        let listener = try NotifyListener(path: rig.tmp.path + "/notify")
        try await rig.daemon.start(waitUntilRunning: false, environment: ["NOTIFY_SOCKET": listener.path])
        try await listener.wait(for: "READY=1")
        guard kill(rig.daemon.pid, SIGHUP) == 0 else { throw TestFailure("kill -HUP: errno \(errno)") }
        try await listener.wait(for: "RELOADING=1")
        try await listener.wait(for: "READY=1", times: 2)
        let reloading = listener.messages.first { $0.contains("RELOADING=1") }
        #expect(reloading?.contains("MONOTONIC_USEC=") == true, "\(listener.messages)")
        #expect(rig.daemon.isRunning)

        let serverListener = try NotifyListener(path: rig.tmp.path + "/notify-server")
        let server = try ServerProcess(dir: try rig.tmp.sub("server2"))
        try await server.start(environment: ["NOTIFY_SOCKET": serverListener.path])
        defer { server.stop() }
        try await serverListener.wait(for: "READY=1")
        guard kill(server.pid, SIGHUP) == 0 else { throw TestFailure("kill -HUP: errno \(errno)") }
        try await serverListener.wait(for: "RELOADING=1")
        try await serverListener.wait(for: "READY=1", times: 2)
        #expect(server.isRunning)
    }

    /// Without NOTIFY_SOCKET nothing is sent, and a watchdog meant for another pid is not pinged.
    @Test func watchdogOnlyForTheProcessMeant() {
        let socket = "/run/x"
        let other = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket, "WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"], pid: 2)
        #expect(other != nil && other?.watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": socket, "WATCHDOG_USEC": "1000"], pid: 2)?.watchdogInterval == .milliseconds(1))
        #expect(SystemdNotifier(environment: [:]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative"]) == nil)
    }
}
