import Foundation
import Testing
import TestSupport

/// A real sync-server and a real syncd process on a temp folder: local changes
/// reach the server's change feed with the right content hashes.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct SyncToServerTests {
    @Test func createModifyDeleteAndNest() async throws {
        let rig = try await Rig.start("e2e")
        defer { rig.stop() }
        let d = rig.daemon
        var expected: [String: String] = [:]
        let dirHash = contentHash([UInt8]())

        // Create: a small file, an empty file, nested directories, a 50 MiB file.
        try writeFile(d.path("hello.txt"), "hello, world\n")
        expected["hello.txt"] = contentHash("hello, world\n")
        try writeFile(d.path("empty"), [])
        expected["empty"] = dirHash
        try FileManager.default.createDirectory(atPath: d.path("a/b/c"), withIntermediateDirectories: true)
        try writeFile(d.path("a/b/c/deep.txt"), "deep")
        expected["a"] = dirHash
        expected["a/b"] = dirHash
        expected["a/b/c"] = dirHash
        expected["a/b/c/deep.txt"] = contentHash("deep")
        let big = pseudoRandomBytes(count: 50 << 20, seed: 42)
        try writeFile(d.path("big.bin"), big)
        expected["big.bin"] = contentHash(big)
        try await rig.waitForServerTree(expected)

        // Modify.
        try writeFile(d.path("hello.txt"), "hello again\n")
        expected["hello.txt"] = contentHash("hello again\n")
        var edited = big
        edited[25 << 20] ^= 0xff
        try writeFile(d.path("big.bin"), edited)
        expected["big.bin"] = contentHash(edited)
        try await rig.waitForServerTree(expected)

        // Delete a file, then a whole directory tree.
        try FileManager.default.removeItem(atPath: d.path("empty"))
        expected["empty"] = nil
        try await rig.waitForServerTree(expected)
        try FileManager.default.removeItem(atPath: d.path("a"))
        for key in ["a", "a/b", "a/b/c", "a/b/c/deep.txt"] { expected[key] = nil }
        try await rig.waitForServerTree(expected)

        let status = try #require(try await d.status())
        #expect(status.errors.isEmpty, "errors: \(status.errors)")
    }

    @Test func statusReportsTheFolder() async throws {
        let rig = try await Rig.start("status")
        defer { rig.stop() }
        try writeFile(rig.daemon.path("x.txt"), "x")
        try await rig.waitForServerTree(["x.txt": contentHash("x")])
        try await eventually("folder idle with nothing pending") {
            let s = try await rig.daemon.status()
            return s?.state == .idle && s?.pendingUploads == 0 && s?.lastSyncedAt != nil
        }
        let report = try await rig.daemon.control.status()
        #expect(report.daemon.pid > 0)
        #expect(report.folders.map(\.id) == ["docs"])
        #expect(report.folders[0].path == rig.daemon.folderPath)
    }
}
