import Foundation
import SyncClient
import SyncCore
import Synchronization
import Testing
import TestSupport

@testable import SyncDaemon

/// A small edit does not wait behind a bulk push (issue 9 point 6): while the commit of a
/// big file is held at the proxy, a small file written meanwhile is committed beside it.
/// Without the express lane the small file's push waits behind the held commit (which the
/// client gives up on after ~10 s, and sends again: then both go in, one after the other).
@Suite(.serialized, .timeLimit(.minutes(8)))
struct ExpressLaneTests {
    @Test func aSmallEditIsCommittedWhileABigFilesCommitIsHeld() async throws {
        let rig = try await QueueWaiterTests.Rig.start("express-lane")
        defer { rig.stop() }
        let runner = Task { await rig.queue.run() }
        defer { runner.cancel() }
        // The big file's commit reaches the proxy and is held there until released; so is
        // every resend of it (the server drops a request it waits on for ~10 s, and the client
        // sends the commit again under its id).
        let held = Atomic<Bool>(false)
        let released = Atomic<Bool>(false)
        defer { released.store(true, ordering: .sequentiallyConsistent) }
        let proxy = rig.proxy
        @Sendable func holdBigCommits() {
            proxy.beforeForwarding(requestContaining: "\"big.bin\"") {
                guard !released.load(ordering: .sequentiallyConsistent) else { return }
                held.store(true, ordering: .sequentiallyConsistent)
                holdBigCommits()
                while !released.load(ordering: .sequentiallyConsistent) { usleep(10_000) }
            }
        }
        holdBigCommits()
        try writeFile(rig.folder + "/big.bin", String(repeating: "0123456789abcdef", count: 1 << 12))
        try await rig.queue.enqueue(["big.bin"])
        try await eventually("the big file's commit is held at the proxy", timeout: .seconds(240)) { held.load(ordering: .sequentiallyConsistent) }

        // A small edit now: committed while the bulk batch is still waiting for its reply.
        try writeFile(rig.folder + "/note.txt", "one line")
        let small = Task { try await rig.queue.push("note.txt") }
        let answered = Task {
            // The big commit is held until released below, however long this takes: a long
            // limit weakens nothing (a loaded start of the whole suite took over 30 s).
            try await eventually("the small edit is committed beside the held push", timeout: .seconds(120)) {
                try rig.index.base.record(folder: "docs", path: "note.txt") != nil
            }
        }
        do { try await answered.value } catch { Issue.record("\(error)") }
        #expect(await rig.queue.expressBatchesPushed >= 1)
        #expect(try rig.index.base.record(folder: "docs", path: "big.bin") == nil, "the big file was not held: nothing was tested")

        // Released: the big file is committed too, and the small edit's waiter has its answer.
        released.store(true, ordering: .sequentiallyConsistent)
        guard case .committed = try await small.value else {
            Issue.record("the small edit was not committed")
            return
        }
        try await eventually("the big file is committed", timeout: .seconds(120)) {
            try rig.index.base.record(folder: "docs", path: "big.bin") != nil
        }
        let client = rig.server.client(credential: rig.credential)
        let live = try await client.changes(folder: "docs", since: 0, limit: 10).entries.filter { !$0.deleted }.map(\.path)
        #expect(Set(live) == ["big.bin", "note.txt"])
        try await eventually("the journal is empty") { try rig.index.journal.pendingCount(folder: "docs") == 0 }
        #expect(try rig.index.outbox.contents(folder: "docs").commits.isEmpty)
    }
}
