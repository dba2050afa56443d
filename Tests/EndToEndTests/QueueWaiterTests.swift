import Foundation
import Logging
import SyncClient
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// Whoever waits on a push is answered exactly once, with what happened, when the
/// transport fails under it: the queue runs in this process against a real server behind
/// a fault proxy. (A second answer would trap the process: a continuation resumed twice.)
@Suite(.serialized, .timeLimit(.minutes(8)))
struct QueueWaiterTests {
    /// A real server, a proxy in front of it, and one folder's queue talking through the proxy.
    struct Rig {
        let tmp: TemporaryDirectory
        let server: ServerProcess
        let proxy: FaultProxy
        let folder: String
        let index: IndexStore
        let queue: TransferQueue
        let credential: String

        static func start(_ label: String, batchLimit: Int = 2_000) async throws -> Rig {
            let tmp = try TemporaryDirectory(label)
            let server = try ServerProcess(dir: try tmp.sub("server"))
            let credential = try await server.provision(folder: "docs", device: "alpha")
            try await server.start()
            let proxy = try FaultProxy(upstreamPort: server.port)
            let folder = try tmp.sub("folder")
            let index = try IndexStore(path: try tmp.sub("state") + "/index.sqlite")
            let logger = Logger(label: "queue-waiter-test")
            let remote = RemoteClient(baseURL: proxy.url, credential: credential, logger: logger)
            let uploader = Uploader(
                folder: "docs", index: index, remote: remote, preparer: Preparer(folder: FolderRoot(folder)),
                progress: TransferProgress(), openWrites: OpenWrites(), maxConcurrent: 4, logger: logger)
            let queue = TransferQueue(
                folder: "docs", index: index, uploader: uploader, deleteGuard: DeleteGuard(maxFraction: 1),
                batchLimit: batchLimit, logger: logger)
            return Rig(tmp: tmp, server: server, proxy: proxy, folder: folder, index: index, queue: queue, credential: credential)
        }

        func stop() {
            proxy.stop()
            server.stop()
            tmp.remove()
        }
    }

    @Test func aLostCommitReplyIsAnsweredOnceWithTheCommit() async throws {
        let rig = try await Rig.start("waiter-lost-reply")
        defer { rig.stop() }
        let runner = Task { await rig.queue.run() }
        defer { runner.cancel() }
        try writeFile(rig.folder + "/a.txt", "first")
        rig.proxy.loseNextReply(toRequestContaining: "\"a.txt\"")
        let outcome = try await rig.queue.push("a.txt")
        guard case .committed(let rev) = outcome else {
            Issue.record("expected a commit, got \(outcome)")
            return
        }
        #expect(rig.proxy.faults == 1, "the reply was not lost: nothing was tested")
        // Applied once, recorded once, nothing left to send again.
        let client = rig.server.client(credential: rig.credential)
        let folderRev = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        #expect(folderRev == rev, "the server's folder is at rev \(folderRev): the commit was applied more than once")
        #expect(try rig.index.base.record(folder: "docs", path: "a.txt")?.rev == rev)
        #expect(try rig.index.outbox.contents(folder: "docs").commits.isEmpty)
    }

    /// The server goes away mid-push and comes back: the waiter is answered once, after
    /// the retries, with the commit (not with the transient failures on the way).
    @Test func aServerThatComesBackAnswersTheWaiterOnce() async throws {
        let rig = try await Rig.start("waiter-server-away")
        defer { rig.stop() }
        let runner = Task { await rig.queue.run() }
        defer { runner.cancel() }
        await rig.server.kill9()
        try writeFile(rig.folder + "/b.txt", "while the server is away")
        let waiter = Task { try await rig.queue.push("b.txt") }
        try await eventually("the queue knows the server is away", timeout: .seconds(60)) {
            await rig.queue.offlineError != nil
        }
        try await rig.server.start()
        let outcome = try await waiter.value
        guard case .committed(let rev) = outcome else {
            Issue.record("expected a commit, got \(outcome)")
            return
        }
        #expect(try rig.index.base.record(folder: "docs", path: "b.txt")?.rev == rev)
        #expect(try rig.index.outbox.contents(folder: "docs").commits.isEmpty)
    }
}
