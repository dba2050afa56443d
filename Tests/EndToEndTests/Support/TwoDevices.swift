import Foundation
import TestSupport
import Testing

/// A server and two syncd processes syncing the same folder.
struct TwoDevices {
    let tmp: TemporaryDirectory
    let server: ServerProcess
    let a: DaemonProcess
    let b: DaemonProcess
    /// Alpha's device credential, for talking to the server directly.
    let credentialA: String

    /// `prepare` runs before anything starts (e.g. mounts a small disk under a data
    /// dir or a folder): the server, then alpha and beta, as made but not running.
    static func start(
        _ label: String, extraFolderConfig: String = "", logLevel: String = "debug",
        prepare: (ServerProcess) throws -> Void = { _ in }, prepareDevices: (DaemonProcess, DaemonProcess) throws -> Void = { _, _ in }
    ) async throws -> TwoDevices {
        let tmp = try TemporaryDirectory(label)
        let server = try ServerProcess(dir: try tmp.sub("server"))
        try prepare(server)
        let credA = try await server.provision(folder: "docs", device: "alpha")
        let credB = try await server.admin(["device", "add", "--name", "beta", "--folder", "docs"])
        try await server.start()
        let a = try DaemonProcess(
            dir: try tmp.sub("alpha"), folderID: "docs", serverURL: server.url, credential: credA,
            extraFolderConfig: extraFolderConfig, logLevel: logLevel)
        let b = try DaemonProcess(
            dir: try tmp.sub("beta"), folderID: "docs", serverURL: server.url, credential: credB,
            extraFolderConfig: extraFolderConfig, logLevel: logLevel)
        try prepareDevices(a, b)
        try await a.start()
        try await b.start()
        return TwoDevices(tmp: tmp, server: server, a: a, b: b, credentialA: credA)
    }

    /// Like `start`, with a `FaultProxy` in front of the server for the devices named in
    /// `throughProxy` ("alpha", "beta"); the others talk to the server directly.
    static func startBehindProxy(_ label: String, throughProxy: Set<String>) async throws -> (TwoDevices, FaultProxy) {
        let tmp = try TemporaryDirectory(label)
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credA = try await server.provision(folder: "docs", device: "alpha")
        let credB = try await server.admin(["device", "add", "--name", "beta", "--folder", "docs"])
        try await server.start()
        let proxy = try FaultProxy(upstreamPort: server.port)
        func url(_ name: String) -> String { throughProxy.contains(name) ? proxy.url : server.url }
        let a = try DaemonProcess(dir: try tmp.sub("alpha"), folderID: "docs", serverURL: url("alpha"), credential: credA)
        let b = try DaemonProcess(dir: try tmp.sub("beta"), folderID: "docs", serverURL: url("beta"), credential: credB)
        try await a.start()
        try await b.start()
        return (TwoDevices(tmp: tmp, server: server, a: a, b: b, credentialA: credA), proxy)
    }

    func stop() {
        a.stop()
        b.stop()
        server.stop()
        tmp.remove()
    }

    /// `stop()` from async code (holding no thread while the processes end).
    func stop() async {
        await a.stop()
        await b.stop()
        await server.stop()
        tmp.remove()
    }

    /// Waits until both folders hold exactly `expected` (path → content hash, directories as the empty hash).
    func waitForBoth(_ expected: [String: String], timeout: Duration = .seconds(30)) async throws {
        for d in [a, b] {
            var last: [String: String] = [:]
            do {
                try await eventually("\(d.dir) converges", timeout: timeout) {
                    last = try localTree(d.folderPath)
                    return last == expected
                }
            } catch {
                let found = "\(error)\nexpected \(expected.keys.sorted())\nfound    \(last.keys.sorted())"
                throw TestFailure(found + (await postMortem()))
            }
        }
    }

    /// For a failure's message: what each device shows (state, transfers, errors) and the tail
    /// of its log; the test's directory is kept.
    func postMortem() async -> String {
        tmp.keepForPostMortem()
        var report = ""
        for d in [a, b] {
            var shown: String
            do {
                let status = try await d.status()
                shown = "state \(status.map { "\($0.state)" } ?? "(no folder)"), transferring \(status?.transferring.map(\.path) ?? [])"
                shown += ", errors \(status?.errors.map { "\($0.path): \($0.message)" } ?? [])"
            } catch {
                shown = "no status: \(error)"
            }
            report += "\n--- \(d.dir): \(shown)\n\(d.log.suffix(2500))"
        }
        return report + "\n--- kept: \(tmp.path)"
    }
}

extension TwoDevices {
    /// `device` restarted (after a kill): both have `expected`, and `device` committed nothing
    /// and made no conflict copy.
    func restartExpectingNothingCommitted(_ device: DaemonProcess, _ expected: [String: String], revBefore: Int64) async throws {
        try await device.start()
        try await waitForBoth(expected, timeout: .seconds(60))
        try await device.waitUntilIdle()
        let client = server.client(credential: credentialA)
        let revAfter = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        #expect(revAfter == revBefore, "\(device.dir) committed \(revAfter - revBefore) revisions after its restart")
        #expect(try await device.status()?.conflicts == 0)
    }
}
