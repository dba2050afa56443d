import Foundation
import SyncCore
import Testing
import TestSupport

/// Two real syncd processes converge through one real sync-server.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct TwoWaySyncTests {
    static let dir = Hashing.contentHash(chunks: [])

    @Test func changesPropagateBothWays() async throws {
        let rig = try await TwoDevices.start("twoway")
        defer { rig.stop() }
        let (a, b) = (rig.a, rig.b)
        var expected: [String: String] = [:]

        // Create on A: files, nested dirs, an empty dir, an empty file, a symlink, an executable.
        try FileManager.default.createDirectory(atPath: a.path("docs/sub"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: a.path("empty-dir"), withIntermediateDirectories: true)
        try writeFile(a.path("docs/sub/note.txt"), "from alpha")
        try writeFile(a.path("empty.txt"), [])
        try writeFile(a.path("run.sh"), "#!/bin/sh\necho hi\n")
        chmod(a.path("run.sh"), 0o755)
        try FileManager.default.createSymbolicLink(atPath: a.path("link"), withDestinationPath: "../outside/target")
        let big = pseudoRandomBytes(count: 12 << 20, seed: 9)
        try writeFile(a.path("big.bin"), big)
        expected = [
            "docs": Self.dir, "docs/sub": Self.dir, "empty-dir": Self.dir, "docs/sub/note.txt": contentHash("from alpha"),
            "empty.txt": contentHash([UInt8]()), "run.sh": contentHash("#!/bin/sh\necho hi\n"),
            "link": Hashing.sha256Hex(Array("../outside/target".utf8)), "big.bin": contentHash(big),
        ]
        try await rig.waitForBoth(expected)
        var st = stat()
        #expect(lstat(b.path("run.sh"), &st) == 0 && st.st_mode & 0o111 != 0, "executable bit travels")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: b.path("link")) == "../outside/target")

        // Modify on B.
        try writeFile(b.path("docs/sub/note.txt"), "edited on beta")
        expected["docs/sub/note.txt"] = contentHash("edited on beta")
        try await rig.waitForBoth(expected)

        // Rename on A (file and directory).
        try FileManager.default.moveItem(atPath: a.path("empty.txt"), toPath: a.path("renamed.txt"))
        expected["renamed.txt"] = expected.removeValue(forKey: "empty.txt")
        try FileManager.default.moveItem(atPath: a.path("docs"), toPath: a.path("papers"))
        for key in ["docs", "docs/sub", "docs/sub/note.txt"] {
            expected["papers" + key.dropFirst(4)] = expected.removeValue(forKey: key)
        }
        try await rig.waitForBoth(expected)

        // Delete on B: A's copy goes to A's trash, not into oblivion.
        try FileManager.default.removeItem(atPath: b.path("big.bin"))
        expected["big.bin"] = nil
        try await rig.waitForBoth(expected)
        let trash = a.dir + "/state/trash/docs"
        let trashed = try localTree(trash).filter { $0.key.hasSuffix("/big.bin") }
        #expect(trashed.values.first == contentHash(big), "the remote delete is kept in the trash")
    }

    @Test func concurrentEditsKeepBothVersions() async throws {
        let rig = try await TwoDevices.start("conflict")
        defer { rig.stop() }
        let (a, b) = (rig.a, rig.b)
        try writeFile(a.path("shared.txt"), "v0")
        try await rig.waitForBoth(["shared.txt": contentHash("v0")])

        _ = try await a.control.pause(folder: nil)
        _ = try await b.control.pause(folder: nil)
        try writeFile(a.path("shared.txt"), "alpha's edit")
        try writeFile(b.path("shared.txt"), "beta's edit")
        _ = try await a.control.resume(folder: nil)
        try await eventually("alpha's edit reaches the server") {
            try await rig.server.client(credential: try String(contentsOfFile: a.dir + "/credential", encoding: .utf8))
                .tree(folder: "docs")["shared.txt"]?.contentHash == contentHash("alpha's edit")
        }
        _ = try await b.control.resume(folder: nil)

        var final: [String: String] = [:]
        try await eventually("both devices hold both versions", timeout: .seconds(30)) {
            let ta = try localTree(a.folderPath), tb = try localTree(b.folderPath)
            final = ta
            return ta == tb && ta.count == 2
        }
        #expect(final["shared.txt"] == contentHash("alpha's edit"))
        let copy = try #require(final.keys.first { $0.hasPrefix("shared (conflict beta ") && $0.hasSuffix(").txt") })
        #expect(final[copy] == contentHash("beta's edit"))
        #expect(try await b.status()?.conflicts == 1)
    }

    @Test func editBeatsDelete() async throws {
        let rig = try await TwoDevices.start("editdelete")
        defer { rig.stop() }
        let (a, b) = (rig.a, rig.b)
        try writeFile(a.path("keep.txt"), "original")
        try await rig.waitForBoth(["keep.txt": contentHash("original")])

        _ = try await a.control.pause(folder: nil)
        _ = try await b.control.pause(folder: nil)
        try FileManager.default.removeItem(atPath: a.path("keep.txt"))
        try writeFile(b.path("keep.txt"), "edited, must survive")
        _ = try await a.control.resume(folder: nil)
        try await eventually("the delete reaches the server") {
            try await rig.server.client(credential: try String(contentsOfFile: a.dir + "/credential", encoding: .utf8))
                .tree(folder: "docs")["keep.txt"] == nil
        }
        _ = try await b.control.resume(folder: nil)
        try await rig.waitForBoth(["keep.txt": contentHash("edited, must survive")])
    }
}
