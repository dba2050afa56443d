import Foundation
import Testing

/// A write through one hard link changes the file's other names without an inotify
/// event for them: `syncctl rescan` finds it (so does the periodic rescan).
@Suite(.serialized, .timeLimit(.minutes(4)))
struct HardLinkTests {
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
        let result = try d.syncctl("rescan")
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("rescanned: docs"))
        try await rig.waitForServerTree(["inside.txt": contentHash("later")], timeout: .seconds(90))
    }
}
