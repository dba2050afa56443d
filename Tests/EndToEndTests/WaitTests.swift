import Foundation
import Testing
import TestSupport

/// `syncctl wait` (issue 15 point 2): scripts wait for a sync instead of polling.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct WaitTests {
    /// Files written just before `wait` are on the server when it returns on the writer, and
    /// on the other device when `wait` returns there: checked once, with no polling. Beta's
    /// change feed is slow (each long-poll's answer held 2 s on the way): it looks idle with
    /// nothing pending while the server has more, and `wait` must not be fooled by that.
    @Test func whenWaitReturnsOnBothDevicesBothHoldEveryFile() async throws {
        let (two, proxy) = try await TwoDevices.startBehindProxy("wait-both", throughProxy: ["beta"])
        defer {
            proxy.stop()
            two.stop()
        }
        proxy.delayReplies(toRequestsContaining: "wait=25", by: .seconds(2))
        // Beta's long-poll in flight was sent before the delay: one change ends it, and the
        // next one is slow.
        try writeFile(two.a.path("first.txt"), "first\n")
        try await two.waitForBoth(["first.txt": contentHash("first\n")])
        try await two.b.waitUntilIdle()
        var expected = ["first.txt": contentHash("first\n")]
        for i in 0..<300 {
            let path = "d\(i % 10)/note-\(i).txt"
            try FileManager.default.createDirectory(atPath: two.a.path("d\(i % 10)"), withIntermediateDirectories: true)
            try writeFile(two.a.path(path), "note \(i)\n")
            expected[path] = contentHash("note \(i)\n")
        }
        let onA = try await two.a.syncctl("wait", "--timeout", "90s")
        #expect(onA.status == 0, "\(onA.out)\(onA.err)")
        #expect(onA.out.contains("docs: synced"), "\(onA.out)")
        let tree = try await two.server.client(credential: two.credentialA).tree(folder: "docs")
        let onServer = tree.filter { !$0.value.deleted && $0.value.kind == .file }.mapValues(\.contentHash)
        let notCommitted = expected.filter { onServer[$0.key] != $0.value }.keys.sorted()
        #expect(notCommitted.isEmpty, "wait returned on alpha with \(notCommitted.count) of \(expected.count) files not committed")

        let onB = try await two.b.syncctl("wait", "docs", "--timeout", "90s", "--json")
        #expect(onB.status == 0, "\(onB.out)\(onB.err)")
        let present = try typedTree(two.b.folderPath).compactMapValues { item -> String? in
            if case .file(let hash) = item { hash } else { nil }
        }
        let missing = expected.filter { present[$0.key] != $0.value }.keys.sorted()
        #expect(missing.isEmpty, "wait returned on beta with \(missing.count) of \(expected.count) files missing, e.g. \(missing.prefix(3))")
    }

    /// With the server gone, `wait` gives up at its timeout and says the folder is offline (3).
    @Test func waitGivesUpOfflineAtItsTimeout() async throws {
        let rig = try await Rig.start("wait-offline")
        defer { rig.stop() }
        try await rig.daemon.waitUntilIdle()
        await rig.server.stop()
        try writeFile(rig.daemon.path("a.txt"), "not sent\n")
        try await eventually("offline") { try await rig.daemon.status()?.state == .offline }
        let started = ContinuousClock.now
        let run = try await rig.daemon.syncctl("wait", "--timeout", "3s")
        #expect(run.status == 3, "\(run.out)\(run.err)")
        #expect(run.out.contains("offline") && run.out.contains("not in sync after"), "\(run.out)")
        #expect(ContinuousClock.now - started >= .seconds(3))
    }

    /// A paused folder cannot get in sync by itself: `wait` says so at once (3), and an
    /// unknown folder is an error sentence, not JSON (1).
    @Test func waitReturnsAtOnceForAPausedFolder() async throws {
        let rig = try await Rig.start("wait-paused")
        defer { rig.stop() }
        try await rig.daemon.waitUntilIdle()
        #expect(try await rig.daemon.syncctl("pause").status == 0)
        try writeFile(rig.daemon.path("a.txt"), "waits for resume\n")
        let run = try await rig.daemon.syncctl("wait")
        #expect(run.status == 3, "\(run.out)\(run.err)")
        #expect(run.out.contains("paused") && run.out.contains("syncctl resume docs"), "\(run.out)")
        let status = try await rig.daemon.syncctl("status")
        #expect(status.status == 3, "paused is waiting: \(status.out)")
        let unknown = try await rig.daemon.syncctl("wait", "nope")
        #expect(unknown.status == 1 && unknown.err.contains("no folder with id nope") && !unknown.err.contains("{"), "\(unknown.err)")
    }

    /// The feed bringing back this device's own commits (2,000 files, their answers held 2 s
    /// on the way, so they come after the pushes were recorded) leaves the folder idle: those
    /// entries were seen already and are no downloads. Counted as downloads, they showed the
    /// folder syncing again for as long as a page of them was looked at.
    @Test func ownCommitsComingBackLeaveTheFolderIdle() async throws {
        let (rig, proxy) = try await Rig.startBehindProxy("own-echo-idle")
        defer {
            proxy.stop()
            rig.stop()
        }
        let daemon = rig.daemon
        proxy.delayReplies(toRequestsContaining: "wait=25", by: .seconds(2))
        // The long-poll in flight was sent before the delay: one change ends it.
        try writeFile(daemon.path("first.txt"), "first\n")
        try await daemon.waitUntilIdle()
        for i in 0..<2_000 {
            try FileManager.default.createDirectory(atPath: daemon.path("d\(i % 20)"), withIntermediateDirectories: true)
            try writeFile(daemon.path("d\(i % 20)/note-\(i).txt"), "note \(i)\n")
        }
        let client = rig.server.client(credential: rig.credential)
        try await eventually("all 2,021 entries on the server", timeout: .seconds(120)) {
            try await client.tree(folder: "docs").count == 2_021
        }
        let head = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        try await daemon.waitUntilIdle(timeout: .seconds(120))
        // From idle on, until the feed has brought back the last of them, and a moment more.
        var states: [String] = []
        var caughtUpAt: ContinuousClock.Instant?
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let status = try await daemon.control.status().folders.first { $0.id == "docs" }
            let state = status.map { "\($0.state.rawValue), cursor \($0.remoteCursor)" } ?? "no status"
            if states.last != state { states.append(state) }
            if caughtUpAt == nil, status?.remoteCursor == head { caughtUpAt = .now }
            if let at = caughtUpAt, ContinuousClock.now - at > .milliseconds(500) { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(caughtUpAt != nil, "the feed never reached the server's head \(head): \(states)")
        #expect(states.allSatisfy { $0.hasPrefix("idle") }, "\(states)")
    }
}
