import Foundation
import Testing
import TestSupport

/// A write through one hard link changes the file's other names without an inotify
/// event for them. Names inside the folder are looked at again once the written one is
/// pushed; a name outside it is found by `syncctl rescan` (so does the periodic rescan).
@Suite(.serialized, .timeLimit(.minutes(8)))
struct HardLinkTests {
    @Test func aWriteThroughOneNameInTheFolderIsPushedForItsOtherNames() async throws {
        let rig = try await Rig.start("hardlink-inside")
        defer { rig.stop() }
        let d = rig.daemon
        try writeFile(d.path("first.txt"), "one")
        #expect(link(d.path("first.txt"), d.path("second.txt")) == 0)
        #expect(link(d.path("first.txt"), d.path("third.txt")) == 0)
        try writeFile(d.path("alone.txt"), "one")
        let one = contentHash("one")
        try await rig.waitForServerTree(
            ["first.txt": one, "second.txt": one, "third.txt": one, "alone.txt": one], timeout: .seconds(90))
        try await d.waitUntilIdle()
        // Written in place through one name (the periodic rescan is an hour off): the
        // other two names change with it, without an event of their own.
        let fd = open(d.path("second.txt"), O_WRONLY | O_APPEND)
        #expect(fd >= 0)
        #expect("+two".withCString { write(fd, $0, 4) } == 4)
        close(fd)
        let two = contentHash("one+two")
        try await rig.waitForServerTree(
            ["first.txt": two, "second.txt": two, "third.txt": two, "alone.txt": one], timeout: .seconds(90))
        try await d.waitUntilIdle()
    }

    /// The other names are looked at once the written one is committed, not when it is refused:
    /// two names refused for good would journal each other for ever (found by review). Every
    /// commit is refused here; after the first name's refusal, no more commits go up.
    @Test func aNameRefusedForGoodDoesNotSendItsOtherNames() async throws {
        let tmp = try TemporaryDirectory("hardlink-refused")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        defer { server.stop() }
        let credential = try await server.provision(folder: "docs", device: "alpha")
        try await server.start()
        let proxy = try FaultProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        let d = try DaemonProcess(dir: try tmp.sub("alpha"), folderID: "docs", serverURL: proxy.url, credential: credential)
        try await d.start()
        defer { d.stop() }
        try writeFile(d.path("first.txt"), "one")
        #expect(link(d.path("first.txt"), d.path("second.txt")) == 0)
        // Both names on the server before the refusals start (idle alone can be seen before
        // the link's event is read: a CI run's second name then went up into the refusals).
        let client = server.client(credential: credential)
        try await eventually("both names are on the server") { try await client.tree(folder: "docs").count == 2 }
        try await d.waitUntilIdle()

        proxy.refuseNext(requestContaining: "/commit", status: 422, code: "bad_request", message: "refused by the test", every: true)
        let fd = open(d.path("first.txt"), O_WRONLY | O_APPEND)
        #expect(fd >= 0)
        #expect("+two".withCString { write(fd, $0, 4) } == 4)
        close(fd)
        try await eventually("first.txt failed for good", timeout: .seconds(60), poll: .milliseconds(200)) {
            try await d.status()?.errors.contains { $0.path == "first.txt" && $0.code == "rejected" && $0.retryAt == nil } == true
        }
        // Nothing more goes up by itself: the refusals stop at what was sent by then (with the
        // other names journaled at the refusal, they climbed by one every few milliseconds).
        let refused = proxy.faults
        #expect(refused >= 1)
        let until = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < until {
            try await Task.sleep(for: .milliseconds(250))
            #expect(proxy.faults == refused, "commits kept going up: \(proxy.faults) refused")
            if proxy.faults != refused { break }
        }
    }

    @Test func aWriteThroughAnotherHardLinkIsFoundByARescan() async throws {
        let rig = try await Rig.start("hardlink")
        defer { rig.stop() }
        let d = rig.daemon
        // One name inside the folder, one outside it (a program writing through its own path).
        let outside = rig.tmp.path + "/outside-name.txt"
        try writeFile(d.path("inside.txt"), "first")
        // (Generous deadlines: a CI pass on a loaded machine took 54 s for this test, and
        // another timed out at 30 s waiting for the first file.)
        try await rig.waitForServerTree(["inside.txt": contentHash("first")], timeout: .seconds(90))
        #expect(link(d.path("inside.txt"), outside) == 0)
        try await d.waitUntilIdle()
        // Same size, written in place through the outside name: no event in the folder.
        let fd = open(outside, O_WRONLY)
        #expect(fd >= 0)
        _ = "later".withCString { write(fd, $0, 5) }
        close(fd)
        let result = try await d.syncctl("rescan")
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("rescanned: docs"))
        try await rig.waitForServerTree(["inside.txt": contentHash("later")], timeout: .seconds(90))
    }
}
