import Foundation
import SyncClient
import SyncCore
import Synchronization
import Testing
import TestSupport

@testable import SyncDaemon

/// A file renamed onto the old name of a file whose move is still on its way (p13 → p12
/// committing, then p14 → p13) goes up as a move too, not as new content beside a delete:
/// the journal keeps the second move for the rerun of p13's op. The queue runs in this
/// process against a real server behind a proxy that holds the first move's commit.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct RenameChainTests {
    @Test func aRenameOntoTheOldNameOfAMoveOnItsWayIsPushedAsAMove() async throws {
        let rig = try await QueueWaiterTests.Rig.start("rename-chain")
        defer { rig.stop() }
        let runner = Task { await rig.queue.run() }
        defer { runner.cancel() }
        for name in ["p13", "p14"] {
            try writeFile(rig.folder + "/\(name).txt", "photo \(name)")
            guard case .committed = try await rig.queue.push("\(name).txt") else { throw TestFailure("\(name).txt not committed") }
        }
        let client = rig.server.client(credential: rig.credential)
        let before = try await client.allRevisions(folder: "docs").map(\.rev).max() ?? 0

        // The first move's commit is held at the proxy while the second rename is journaled.
        let held = Atomic<Bool>(false), released = Atomic<Bool>(false)
        defer { released.store(true, ordering: .sequentiallyConsistent) }
        rig.proxy.beforeForwarding(requestContaining: "\"p12.txt\"") {
            held.store(true, ordering: .sequentiallyConsistent)
            while !released.load(ordering: .sequentiallyConsistent) { usleep(10_000) }
        }
        try FileManager.default.moveItem(atPath: rig.folder + "/p13.txt", toPath: rig.folder + "/p12.txt")
        try await rig.queue.enqueue(["p12.txt", "p13.txt"], moves: ["p12.txt": "p13.txt"])
        try await eventually("the first move's commit is held at the proxy", timeout: .seconds(120)) {
            held.load(ordering: .sequentiallyConsistent)
        }
        try FileManager.default.moveItem(atPath: rig.folder + "/p14.txt", toPath: rig.folder + "/p13.txt")
        try await rig.queue.enqueue(["p13.txt", "p14.txt"], moves: ["p13.txt": "p14.txt"])
        released.store(true, ordering: .sequentiallyConsistent)

        try await eventually("both renames are committed, the journal empty", timeout: .seconds(120)) {
            try rig.index.journal.pendingCount(folder: "docs") == 0
        }
        let after = try await client.allRevisions(folder: "docs").filter { $0.rev > before }
        let shown = after.map { "\($0.rev) \($0.path) from=\($0.movedFrom ?? "-") deleted=\($0.deleted)" }.joined(separator: "\n")
        #expect(after.contains { $0.path == "p12.txt" && $0.movedFrom == "p13.txt" }, "\(shown)")
        #expect(
            after.contains { $0.path == "p13.txt" && !$0.deleted && $0.movedFrom == "p14.txt" },
            "p14 → p13 did not go up as a move:\n\(shown)")
        let live = try await client.changes(folder: "docs", since: 0, limit: 100).entries.filter { !$0.deleted }
        #expect(
            Dictionary(uniqueKeysWithValues: live.map { ($0.path, $0.contentHash) })
                == ["p12.txt": contentHash("photo p13"), "p13.txt": contentHash("photo p14")])
        #expect(try rig.index.outbox.contents(folder: "docs").commits.isEmpty)
    }

    /// Both renames journaled before the queue claims them (one settle window): one commit
    /// holds both moves, in order; the second's destination is the first's old name, free by
    /// then on the server (its changes apply in order).
    @Test func twoRenamesOfAChainInOneBatchGoUpAsMoves() async throws {
        let rig = try await QueueWaiterTests.Rig.start("rename-chain-batch")
        defer { rig.stop() }
        let runner = Task { await rig.queue.run() }
        defer { runner.cancel() }
        for name in ["p13", "p14", "p15"] {
            try writeFile(rig.folder + "/\(name).txt", "photo \(name)")
            guard case .committed = try await rig.queue.push("\(name).txt") else { throw TestFailure("\(name).txt not committed") }
        }
        let client = rig.server.client(credential: rig.credential)
        let before = try await client.allRevisions(folder: "docs").map(\.rev).max() ?? 0
        for i in 13...15 {
            try FileManager.default.moveItem(atPath: rig.folder + "/p\(i).txt", toPath: rig.folder + "/p\(i - 1).txt")
        }
        // One transaction: the queue claims all three or none.
        try await rig.queue.enqueue([
            JournalRequest(paths: ["p12.txt", "p13.txt"], moves: ["p12.txt": "p13.txt"]),
            JournalRequest(paths: ["p13.txt", "p14.txt"], moves: ["p13.txt": "p14.txt"]),
            JournalRequest(paths: ["p14.txt", "p15.txt"], moves: ["p14.txt": "p15.txt"]),
        ])
        try await eventually("the renames are committed, the journal empty", timeout: .seconds(120)) {
            try rig.index.journal.pendingCount(folder: "docs") == 0
        }
        let after = try await client.allRevisions(folder: "docs").filter { $0.rev > before }
        let shown = after.map { "\($0.rev) \($0.path) from=\($0.movedFrom ?? "-") deleted=\($0.deleted)" }.joined(separator: "\n")
        for i in 13...15 {
            #expect(
                after.contains { $0.path == "p\(i - 1).txt" && !$0.deleted && $0.movedFrom == "p\(i).txt" },
                "p\(i) → p\(i - 1) did not go up as a move:\n\(shown)")
        }
        #expect(!after.contains { !$0.deleted && $0.movedFrom == nil }, "new content went up:\n\(shown)")
        let live = try await client.changes(folder: "docs", since: 0, limit: 100).entries.filter { !$0.deleted }
        #expect(
            Dictionary(uniqueKeysWithValues: live.map { ($0.path, $0.contentHash) })
                == ["p12.txt": contentHash("photo p13"), "p13.txt": contentHash("photo p14"), "p14.txt": contentHash("photo p15")])
    }
}
