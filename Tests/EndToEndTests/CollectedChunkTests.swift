import Foundation
import GRDB
import Synchronization
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A chunk the server had when the daemon asked, and dropped before the daemon's commit (its
/// garbage collection between the two), is uploaded again: the commit refused with
/// `missing_chunks` is prepared afresh, not shown as a failure.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct CollectedChunkTests {
    @Test func aChunkCollectedBetweenUploadAndCommitIsUploadedAgain() async throws {
        let rig = try await QueueWaiterTests.Rig.start("collected-chunk")
        defer { rig.stop() }
        let runner = Task { await rig.queue.run() }
        defer { runner.cancel() }
        let content = "the bytes of a file whose chunk the server drops at the worst moment"
        let hash = Hashing.sha256Hex(Array(content.utf8))
        let server = rig.server
        let dropped = DroppedRows()
        // What the collector's drop does, in the server's database, just before the commit
        // that references the chunk arrives.
        rig.proxy.beforeForwarding(requestContaining: "\"gone.txt\"") {
            do {
                try server.sql("DELETE FROM chunk_index WHERE hash = \(ServerProcess.literal(hash))")
                dropped.add()
            } catch {
                dropped.fail("\(error)")
            }
        }
        try writeFile(rig.folder + "/gone.txt", content)
        let outcome = try await rig.queue.push("gone.txt")
        #expect(dropped.count == 1, "the chunk's row was not dropped: nothing was tested (\(dropped.errors))")
        guard case .committed = outcome else {
            Issue.record("expected a commit, got \(outcome)")
            return
        }
        let client = rig.server.client(credential: rig.credential)
        #expect(try await client.getChunk(folder: "docs", hash: hash) == Array(content.utf8))
        #expect(try await client.tree(folder: "docs")["gone.txt"]?.chunks == [hash])
    }
}

/// What the proxy's hook did (it runs on the proxy's thread).
final class DroppedRows: Sendable {
    private let state = Mutex<(count: Int, errors: [String])>((0, []))
    func add() { state.withLock { $0.count += 1 } }
    func fail(_ error: String) { state.withLock { $0.errors.append(error) } }
    var count: Int { state.withLock { $0.count } }
    var errors: [String] { state.withLock { $0.errors } }
}
