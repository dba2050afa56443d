import Foundation
import SyncCore
import Testing
import TestSupport

/// The reply to a commit is lost after the server applied it (a proxy cuts the
/// connection instead of passing the reply on). The retry must neither apply it
/// twice nor be planned against the bases it already changed: the devices
/// converge, with nothing deleted coming back and no old name left behind.
@Suite(.serialized)
struct LostReplyTests {
    @Test func aLostReplyToADirectoryMoveAndADeleteConverges() async throws {
        let (two, proxy) = try await TwoDevices.startBehindProxy("lost-reply", throughProxy: ["alpha"])
        defer {
            proxy.stop()
            two.stop()
        }
        let (a, b, server, credA) = (two.a, two.b, two.server, two.credentialA)
        let dir = Hashing.contentHash(chunks: [])
        try FileManager.default.createDirectory(atPath: a.path("dir"), withIntermediateDirectories: true)
        try writeFile(a.path("dir/one.txt"), "one")
        try writeFile(a.path("dir/two.txt"), "two")
        try writeFile(a.path("gone.txt"), "gone")
        try await two.waitForBoth([
            "dir": dir, "dir/one.txt": contentHash("one"), "dir/two.txt": contentHash("two"), "gone.txt": contentHash("gone"),
        ])
        try await a.waitUntilIdle()

        proxy.loseNextReply(toRequestContaining: "\"move_from\"")
        // A file deleted inside the directory just before it is renamed: the move takes
        // the server's copy along, and its tombstone must follow to the new name.
        try FileManager.default.removeItem(atPath: a.path("dir/two.txt"))
        try FileManager.default.moveItem(atPath: a.path("dir"), toPath: a.path("renamed"))
        try FileManager.default.removeItem(atPath: a.path("gone.txt"))
        try await eventually("the move's reply was lost") { proxy.faults == 1 }

        let expected = ["renamed": dir, "renamed/one.txt": contentHash("one")]
        do {
            try await two.waitForBoth(expected)
        } catch {
            throw TestFailure("\(error)\n--- alpha:\n\(a.log.suffix(6000))\n--- server:\n\(server.log.suffix(3000))")
        }
        try await a.waitUntilIdle()
        try await b.waitUntilIdle()
        // Settled: still the same everywhere, and the server agrees.
        #expect(try localTree(a.folderPath) == expected)
        #expect(try localTree(b.folderPath) == expected)
        let live = try await server.client(credential: credA).tree(folder: "docs").filter { !$0.value.deleted }
        #expect(live.mapValues(\.contentHash) == expected)
        #expect(try await a.status()?.transferring.isEmpty == true, "no transfer left hanging")
        #expect(proxy.faults == 1)
    }
}
