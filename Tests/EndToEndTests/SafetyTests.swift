import Foundation
import SyncCore
import Testing
import TestSupport

/// The guards that keep a mistake on one device from wiping the others.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SafetyTests {
    @Test func aDeleteWaveWaitsForApprovalOnBothSides() async throws {
        let rig = try await TwoDevices.start("wave")
        defer { rig.stop() }
        let (a, b) = (rig.a, rig.b)
        var all: [String: String] = [:]
        for i in 0..<50 {
            try writeFile(a.path("f\(i).txt"), "content \(i)")
            all["f\(i).txt"] = contentHash("content \(i)")
        }
        try await rig.waitForBoth(all)

        // Delete 80% on A: it waits on A, nothing is deleted on the server or on B.
        for i in 0..<40 { try FileManager.default.removeItem(atPath: a.path("f\(i).txt")) }
        try await eventually("alpha waits for approval") { try await a.status()?.state == .waitingForApproval }
        let credA = try String(contentsOfFile: a.dir + "/credential", encoding: .utf8)
        #expect(try await rig.server.client(credential: credA).tree(folder: "docs").count == 50)
        #expect(try localTree(b.folderPath).count == 50)

        // Approve on A: the server drops them; B holds the remote wave in turn.
        let reply = try await a.control.approveDeletes(folder: "docs")
        #expect(reply.released > 0)
        try await eventually("server drops the 40 files") {
            try await rig.server.client(credential: credA).tree(folder: "docs").count == 10
        }
        try await eventually("beta waits for approval") { try await b.status()?.state == .waitingForApproval }
        #expect(try localTree(b.folderPath).count == 50, "nothing deleted on beta before approval")

        _ = try await b.control.approveDeletes(folder: nil)
        let rest = all.filter { Int($0.key.dropFirst().dropLast(4))! >= 40 }
        try await rig.waitForBoth(rest)
    }

    /// No small-folder exemption: all five files of a five-file folder deleted while the
    /// daemon runs (not the root: its contents) wait on both sides. (The absolute count,
    /// `max_delete_count`, is checked in DeleteGuardTests.)
    @Test func aSmallFolderEmptiedWhileRunningWaitsToo() async throws {
        let rig = try await TwoDevices.start("wave-small")
        defer { rig.stop() }
        let (a, b) = (rig.a, rig.b)
        var all: [String: String] = [:]
        for i in 0..<5 {
            try writeFile(a.path("s\(i).txt"), "small \(i)")
            all["s\(i).txt"] = contentHash("small \(i)")
        }
        try await rig.waitForBoth(all)
        for i in 0..<5 { try FileManager.default.removeItem(atPath: a.path("s\(i).txt")) }
        try await eventually("alpha waits for approval") { try await a.status()?.state == .waitingForApproval }
        #expect(try localTree(b.folderPath).count == 5, "nothing deleted on beta before approval")
        _ = try await a.control.approveDeletes(folder: "docs")
        try await eventually("beta holds the remote wave") { try await b.status()?.state == .waitingForApproval }
        _ = try await b.control.approveDeletes(folder: nil)
        try await rig.waitForBoth([:])
    }

    @Test func anEmptiedFolderRootDeletesNothing() async throws {
        let rig = try await Rig.start("emptied")
        defer { rig.stop() }
        let d = rig.daemon
        for i in 0..<5 { try writeFile(d.path("keep\(i).txt"), "\(i)") }
        let expected = Dictionary(uniqueKeysWithValues: (0..<5).map { ("keep\($0).txt", contentHash("\($0)")) })
        try await rig.waitForServerTree(expected)
        // The folder's contents vanish while the daemon is down (an unmounted disk looks like this).
        d.stop()
        for i in 0..<5 { try FileManager.default.removeItem(atPath: d.path("keep\(i).txt")) }
        try await d.start(waitUntilRunning: false)
        try await eventually("the folder is paused with an error") { try await d.status()?.state == .error }
        #expect(try await rig.server.client(credential: rig.credential).tree(folder: "docs") .mapValues(\.contentHash) == expected)
    }
}
