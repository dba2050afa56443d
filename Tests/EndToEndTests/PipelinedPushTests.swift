import Foundation
import Logging
import SyncClient
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// The bulk lane reads, hashes and uploads its next batch while the one before commits
/// (`StagedPush`): every op is committed once, and a staged op prepared against index rows
/// that commit changed goes round again instead of reaching the server stale. A real
/// server; the folder's queue runs in this process with small batches.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct PipelinedPushTests {
    typealias Rig = QueueWaiterTests.Rig

    /// (A CI machine running every suite at once has taken seconds per batch.)
    static func drained(_ rig: Rig) async throws {
        try await eventually("the journal is empty", timeout: .seconds(150)) {
            try rig.index.journal.pendingCount(folder: "docs") == 0
        }
        // A path dropped with an error leaves the journal too (a CI run lost a first batch
        // so, without saying why).
        let errors = try rig.index.errors.list(folder: "docs")
        #expect(errors.isEmpty, "paths dropped with an error: \(errors)")
    }

    @Test func aChainOfBatchesStagesEachNextWhileTheOneBeforeCommits() async throws {
        let rig = try await Rig.start("pipelined-chain", batchLimit: 4)
        defer { rig.stop() }
        try FileManager.default.createDirectory(atPath: rig.folder + "/d", withIntermediateDirectories: true)
        let files = (0..<13).map { String(format: "d/f%02d", $0) }
        for path in files { try writeFile(rig.folder + "/" + path, "content of \(path)") }
        try await rig.queue.enqueue(["d"] + files)
        let runner = Task { await rig.queue.run() }
        defer { runner.cancel() }
        try await Self.drained(rig)

        #expect(await rig.queue.batchesPushed >= 4)
        #expect(await rig.queue.batchesStagedAhead > 0, "no batch was staged beside a commit: nothing was tested")
        #expect(await rig.queue.opsSetAside == 0)
        let client = rig.server.client(credential: rig.credential)
        let feed = try await client.changes(folder: "docs", since: 0, limit: 1000)
        #expect(Set(feed.entries.map(\.path)) == Set(["d"] + files))
        #expect(feed.entries.allSatisfy { !$0.deleted })
        // Each path committed once (one revision per path), and recorded with that revision.
        #expect(feed.cursor == Int64(files.count + 1))
        for entry in feed.entries {
            #expect(try rig.index.base.record(folder: "docs", path: entry.path)?.rev == entry.rev)
        }
        #expect(try rig.index.outbox.contents(folder: "docs").commits.isEmpty)
    }

    /// `rm -r d` journals the directory and its files. The batch that holds `d` deletes
    /// everything below it; the next batch, staged meanwhile, had prepared tombstones for
    /// two of those files against their old revisions. They go round again (and find
    /// nothing left to do) instead of reaching the server as stale deletes.
    @Test func aStagedOpPreparedAgainstRowsACommitChangedGoesRoundAgain() async throws {
        let rig = try await Rig.start("pipelined-stale", batchLimit: 2)
        defer { rig.stop() }
        try FileManager.default.createDirectory(atPath: rig.folder + "/d", withIntermediateDirectories: true)
        let files = ["a", "b", "c", "e"].map { "d/" + $0 }
        for path in files { try writeFile(rig.folder + "/" + path, "content of \(path)") }
        try await rig.queue.enqueue(["d"] + files)
        let conflicts = ConflictCount()
        await rig.queue.onConflict { entries in await conflicts.add(entries.count) }
        let runner = Task { await rig.queue.run() }
        defer { runner.cancel() }
        try await Self.drained(rig)
        let client = rig.server.client(credential: rig.credential)
        let before = try await client.changes(folder: "docs", since: 0, limit: 1000).cursor

        try FileManager.default.removeItem(atPath: rig.folder + "/d")
        // Claimed in this order: [d, d/a], then [d/c, d/e] staged while the first commits.
        await rig.queue.setPaused(true)
        try await rig.queue.enqueue(["d", "d/a"])
        try await rig.queue.enqueue(["d/c", "d/e"])
        await rig.queue.setPaused(false)
        try await Self.drained(rig)

        #expect(await rig.queue.opsSetAside >= 2, "no staged op was sent back: nothing was tested")
        #expect(await conflicts.count == 0, "a stale delete reached the server")
        let after = try await client.changes(folder: "docs", since: before, limit: 1000)
        // One commit deleted the five paths, once each.
        #expect(after.entries.count == 5)
        #expect(after.entries.allSatisfy { $0.deleted })
        #expect(after.cursor == before + 5)
        for path in ["d"] + files {
            #expect(try rig.index.base.record(folder: "docs", path: path)?.deleted == true)
        }
        #expect(try rig.index.outbox.contents(folder: "docs").commits.isEmpty)
    }
}

actor ConflictCount {
    private(set) var count = 0
    func add(_ n: Int) { count += n }
}

extension PipelinedPushTests {
    /// Moves journaled among many new files: the short first batch of the chain and the
    /// staged batches after it push them in journal order (moves first, each time), and the
    /// server ends up with the moved file and every new one, the move kept as a move.
    @Test func movesAmongManyNewFilesArePushedAsMoves() async throws {
        let rig = try await Rig.start("pipelined-moves")
        defer { rig.stop() }
        let moved = (0..<3).map { "m\($0)" }
        for path in moved { try writeFile(rig.folder + "/" + path, "moved \(path)") }
        let runner = Task { await rig.queue.run() }
        defer { runner.cancel() }
        for path in moved { _ = try await rig.queue.push(path) }
        await rig.queue.setPaused(true)
        // 300 new files first (the chain's first batch has none of the moves, its next claim
        // meets one and puts it back), then each move followed by more new files.
        var files = (0..<300).map { String(format: "first-%03d", $0) }
        for file in files { try writeFile(rig.folder + "/" + file, "new \(file)") }
        try await rig.queue.enqueue(files)
        for (i, path) in moved.enumerated() {
            try FileManager.default.moveItem(atPath: rig.folder + "/" + path, toPath: rig.folder + "/" + path + "-renamed")
            try await rig.queue.enqueue([path + "-renamed"], moves: [path + "-renamed": path])
            let more = (0..<(i == 0 ? 200 : 150)).map { String(format: "n\(i)-%03d", $0) }
            for file in more { try writeFile(rig.folder + "/" + file, "new \(file)") }
            try await rig.queue.enqueue(more)
            files += more
        }
        await rig.queue.setPaused(false)
        try await Self.drained(rig)

        let client = rig.server.client(credential: rig.credential)
        let feed = try await client.changes(folder: "docs", since: 0, limit: 1000)
        let live = Set(feed.entries.filter { !$0.deleted }.map(\.path))
        #expect(live == Set(moved.map { $0 + "-renamed" } + files))
        for path in moved {
            #expect(feed.entries.first { $0.path == path + "-renamed" }?.movedFrom == path, "\(path) was not pushed as a move")
        }
    }
}
