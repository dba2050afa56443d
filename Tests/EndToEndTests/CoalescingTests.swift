import Foundation
import Logging
import SyncClient
import SyncConfig
import Testing
import TestSupport

@testable import SyncDaemon

/// The journal keeps one op per path: concurrent requests for the same path
/// join it, every waiter hears the result once, and only one transfer happens.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct CoalescingTests {
    @Test func hundredRequestsOneTransfer() async throws {
        let tmp = try TemporaryDirectory("coalesce")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "laptop")
        try await server.start()
        defer { server.stop() }
        let folderPath = try tmp.sub("folder")
        let config = try DaemonConfig.parse(
            toml: """
                [daemon]
                state_dir = "\(tmp.path)/state"
                [server]
                url = "\(server.url)"
                credential_file = "\(tmp.path)/credential"
                [[folder]]
                id = "docs"
                path = "\(folderPath)"
                """, file: "inline.toml", checkPaths: false)
        try FileManager.default.createDirectory(atPath: config.daemon.stateDir, withIntermediateDirectories: true)
        let index = try IndexStore(path: config.daemon.stateDir + "/index.sqlite")
        let remote = RemoteClient(baseURL: server.url, credential: credential, logger: Logger(label: "test"))
        let engine = Daemon.makeEngine(
            folder: config.folders[0], config: config, index: index, remote: remote, metrics: DaemonMetrics(),
            logger: Logger(label: "test"))
        let worker = Task { await engine.queue.run() }
        defer { worker.cancel() }

        try writeFile(folderPath + "/same.txt", pseudoRandomBytes(count: 300_000, seed: 7))
        let outcomes = try await withThrowingTaskGroup(of: PushOutcome.self) { group in
            for _ in 0..<100 { group.addTask { try await engine.queue.push("same.txt") } }
            var all: [PushOutcome] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.count == 100)
        let failures = outcomes.filter {
            switch $0 {
            case .committed, .unchanged: false
            default: true
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(outcomes.contains(.committed(rev: 1)))
        #expect(await engine.queue.changesCommitted == 1)
        let cursor = try await server.client(credential: credential).changes(folder: "docs", since: 1 << 50).cursor
        #expect(cursor == 1, "exactly one revision on the server")
        #expect(try index.journal.pendingCount(folder: "docs") == 0)
    }
}
