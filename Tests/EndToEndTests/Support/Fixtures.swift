import Foundation
import SyncCore
import TestSupport

/// The content hash the server must report for these bytes.
func contentHash(_ bytes: [UInt8]) -> String { FileChunker().chunk(bytes: bytes).contentHash }
func contentHash(_ text: String) -> String { contentHash(Array(text.utf8)) }

/// A server, a provisioned folder and a daemon syncing it: the usual setup.
struct Rig {
    let tmp: TemporaryDirectory
    let server: ServerProcess
    let credential: String
    let daemon: DaemonProcess
    let folder = "docs"

    static func start(_ label: String, extraFolderConfig: String = "", startDaemon: Bool = true) async throws -> Rig {
        let tmp = try TemporaryDirectory(label)
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "laptop")
        try await server.start()
        let daemon = try DaemonProcess(
            dir: try tmp.sub("device"), folderID: "docs", serverURL: server.url, credential: credential,
            extraFolderConfig: extraFolderConfig)
        if startDaemon { try await daemon.start() }
        return Rig(tmp: tmp, server: server, credential: credential, daemon: daemon)
    }

    /// A rig whose daemon talks to the server through a `FaultProxy`, started and idle. The
    /// caller stops the proxy too.
    static func startBehindProxy(_ label: String) async throws -> (Rig, FaultProxy) {
        let tmp = try TemporaryDirectory(label)
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "laptop")
        try await server.start()
        let proxy = try FaultProxy(upstreamPort: server.port)
        let daemon = try DaemonProcess(dir: try tmp.sub("device"), folderID: "docs", serverURL: proxy.url, credential: credential)
        let rig = Rig(tmp: tmp, server: server, credential: credential, daemon: daemon)
        do {
            try await daemon.start()
            try await daemon.waitUntilIdle()
        } catch {
            proxy.stop()
            await rig.stop()
            throw error
        }
        return (rig, proxy)
    }

    func stop() {
        daemon.stop()
        server.stop()
        tmp.remove()
    }

    /// `stop()` from async code (holding no thread while the processes end).
    func stop() async {
        await daemon.stop()
        await server.stop()
        tmp.remove()
    }

    /// Waits until the server's live tree is exactly `expected` (path → content hash).
    func waitForServerTree(_ expected: [String: String], timeout: Duration = .seconds(30)) async throws {
        let client = server.client(credential: credential)
        var last: [String: String] = [:]
        do {
            try await eventually("server tree matches", timeout: timeout) {
                last = try await client.tree(folder: folder).mapValues(\.contentHash)
                return last == expected
            }
        } catch {
            let missing = expected.filter { last[$0.key] != $0.value }.keys.sorted().prefix(10)
            let extra = last.keys.filter { expected[$0] == nil }.sorted().prefix(10)
            throw TestFailure("\(error); wrong or missing: \(Array(missing)); unexpected: \(Array(extra))\n--- syncd log tail:\n\(daemon.log.suffix(3000))")
        }
    }

    func folderRev() async throws -> Int64 {
        try await server.client(credential: credential).changes(folder: folder, since: 1 << 50, limit: 1).cursor
    }

    /// Every revision the server keeps of the folder, one line each, for a failure message.
    func history() async throws -> String {
        let client = server.client(credential: credential)
        var lines: [String] = []
        for entry in try await client.changes(folder: folder, since: 0, limit: 10_000).entries {
            for version in try await client.history(folder: folder, path: entry.path) {
                lines.append("rev \(version.rev) \(version.path) \(version.deleted ? "deleted" : version.kind.rawValue) \(version.contentHash.prefix(12))")
            }
        }
        return lines.sorted().joined(separator: "\n")
    }
}
