import Foundation
import SyncCore
import Testing
import TestSupport

/// A permission change alone, and a path that changes kind (file ↔ directory ↔
/// symlink, as `git checkout` of another branch does), reach the other device.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct KindAndModeTests {
    static let dir = Hashing.contentHash(chunks: [])

    @Test func aPermissionChangeAloneIsSyncedBothWays() async throws {
        let two = try await TwoDevices.start("mode")
        defer { two.stop() }
        try writeFile(two.a.path("run.sh"), "echo hi")
        try FileManager.default.createDirectory(atPath: two.a.path("private"), withIntermediateDirectories: true)
        try await two.waitForBoth(["run.sh": contentHash("echo hi"), "private": Self.dir])
        try await waitForMode(two.b.path("run.sh"), 0o644, on: two.b)
        try await two.b.waitUntilIdle()

        #expect(chmod(two.a.path("run.sh"), 0o755) == 0)
        #expect(chmod(two.a.path("private"), 0o700) == 0)
        try await waitForMode(two.b.path("run.sh"), 0o755, on: two.b)
        try await waitForMode(two.b.path("private"), 0o700, on: two.b)

        // And back from the other side, the content untouched.
        try await two.a.waitUntilIdle()
        #expect(chmod(two.b.path("run.sh"), 0o640) == 0)
        try await waitForMode(two.a.path("run.sh"), 0o640, on: two.a)
        try await two.waitForBoth(["run.sh": contentHash("echo hi"), "private": Self.dir])
        for d in [two.a, two.b] {
            try await d.waitUntilIdle()
            let status = try #require(try await d.status())
            #expect(status.errors.isEmpty, "\(status.errors)")
        }
        // No mode travels back and forth (a umask on the receiving side must not start a
        // ping-pong): one more change is exactly one more revision.
        let client = two.server.client(credential: two.credentialA)
        let before = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        try writeFile(two.a.path("marker"), "m")
        try await two.waitForBoth(["run.sh": contentHash("echo hi"), "private": Self.dir, "marker": contentHash("m")])
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        let after = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        #expect(after == before + 1, "\(after - before) revisions for one new file")
    }

    @Test func aPathThatChangesKindConverges() async throws {
        // Under load the changes may be committed as deletes and re-creations, and half of
        // this tiny folder deleted at once is a delete wave: the guard is not tested here.
        let two = try await TwoDevices.start("kind", extraFolderConfig: "max_delete_fraction = 1")
        defer { two.stop() }
        let fm = FileManager.default
        try writeFile(two.a.path("swap"), "a file")
        try fm.createDirectory(atPath: two.a.path("dir/sub"), withIntermediateDirectories: true)
        try writeFile(two.a.path("dir/sub/deep.txt"), "deep")
        try writeFile(two.a.path("dir/top.txt"), "top")
        try writeFile(two.a.path("link"), "soon a link")
        try fm.createDirectory(atPath: two.a.path("tree"), withIntermediateDirectories: true)
        try writeFile(two.a.path("tree/leaf"), "leaf")
        try await two.waitForBoth([
            "swap": contentHash("a file"), "dir": Self.dir, "dir/sub": Self.dir, "dir/sub/deep.txt": contentHash("deep"),
            "dir/top.txt": contentHash("top"), "link": contentHash("soon a link"), "tree": Self.dir,
            "tree/leaf": contentHash("leaf"),
        ])
        try await two.b.waitUntilIdle()

        // file → directory, directory → file, file → symlink, directory → symlink.
        try fm.removeItem(atPath: two.a.path("swap"))
        try fm.createDirectory(atPath: two.a.path("swap"), withIntermediateDirectories: false)
        try writeFile(two.a.path("swap/inside.txt"), "inside")
        try fm.removeItem(atPath: two.a.path("dir"))
        try writeFile(two.a.path("dir"), "now a file")
        try fm.removeItem(atPath: two.a.path("link"))
        try fm.createSymbolicLink(atPath: two.a.path("link"), withDestinationPath: "swap/inside.txt")
        try fm.removeItem(atPath: two.a.path("tree"))
        try fm.createSymbolicLink(atPath: two.a.path("tree"), withDestinationPath: "dir")
        let changed = [
            "swap": Self.dir, "swap/inside.txt": contentHash("inside"), "dir": contentHash("now a file"),
            "link": Hashing.sha256Hex(Array("swap/inside.txt".utf8)), "tree": Hashing.sha256Hex(Array("dir".utf8)),
        ]
        try await two.waitForBoth(changed, timeout: .seconds(60))

        // And back again from the other device.
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        try fm.removeItem(atPath: two.b.path("swap"))
        try writeFile(two.b.path("swap"), "a file again")
        try fm.removeItem(atPath: two.b.path("dir"))
        try fm.createDirectory(atPath: two.b.path("dir"), withIntermediateDirectories: false)
        try fm.removeItem(atPath: two.b.path("tree"))
        try fm.createDirectory(atPath: two.b.path("tree"), withIntermediateDirectories: false)
        try writeFile(two.b.path("tree/leaf"), "leaf 2")
        try await two.waitForBoth(
            [
                "swap": contentHash("a file again"), "dir": Self.dir, "tree": Self.dir, "tree/leaf": contentHash("leaf 2"),
                "link": Hashing.sha256Hex(Array("swap/inside.txt".utf8)),
            ], timeout: .seconds(60))
        for d in [two.a, two.b] {
            try await d.waitUntilIdle()
            let status = try #require(try await d.status())
            #expect(status.errors.isEmpty, "\(status.errors)")
        }
    }

    /// A directory replaced by a symlink or a file, seen by the uploader only once the
    /// replacement is there (here: made while paused), is committed as that replacement.
    /// (It was committed as the directory's tombstone alone: the new entry lost, silently.)
    @Test func aDirectoryReplacedWhilePausedArrivesAsItsReplacement() async throws {
        let two = try await TwoDevices.start("kind-paused", extraFolderConfig: "max_delete_fraction = 1")
        defer { two.stop() }
        let fm = FileManager.default
        for name in ["tree", "box"] {
            try fm.createDirectory(atPath: two.a.path(name), withIntermediateDirectories: true)
            try writeFile(two.a.path("\(name)/leaf"), "leaf")
        }
        try await two.waitForBoth([
            "tree": Self.dir, "tree/leaf": contentHash("leaf"), "box": Self.dir, "box/leaf": contentHash("leaf"),
        ])
        try await two.a.waitUntilIdle()

        _ = try await two.a.control.pause(folder: nil)
        try fm.removeItem(atPath: two.a.path("tree"))
        try fm.createSymbolicLink(atPath: two.a.path("tree"), withDestinationPath: "box")
        try fm.removeItem(atPath: two.a.path("box"))
        try writeFile(two.a.path("box"), "a file")
        // Every path journaled while nothing is sent (the deletes too: then no later op of
        // theirs covers for a replacement the first push lost).
        try await eventually("alpha has all four paths journaled") { try await two.a.status()?.pendingUploads ?? 0 >= 4 }
        _ = try await two.a.control.resume(folder: nil)
        try await two.waitForBoth(
            ["tree": Hashing.sha256Hex(Array("box".utf8)), "box": contentHash("a file")], timeout: .seconds(60))
    }

    private func waitForMode(_ path: String, _ mode: mode_t, on daemon: DaemonProcess) async throws {
        var seen: mode_t = 0
        do {
            try await eventually("\(path) has mode \(String(mode, radix: 8))", timeout: .seconds(30)) {
                var st = stat()
                guard lstat(path, &st) == 0 else { return false }
                seen = st.st_mode & 0o7777
                return seen == mode
            }
        } catch {
            throw TestFailure("\(error); last seen \(String(seen, radix: 8))\n--- log tail:\n\(daemon.log.suffix(2000))")
        }
    }
}

/// A sparse file (a VM image, a database file) arrives sparse: its holes take no space.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct SparseFileTests {
    @Test func aSparseFileArrivesSparse() async throws {
        let two = try await TwoDevices.start("sparse")
        defer { two.stop() }
        // 64 MiB with 4 KiB of data at the start and at the end, holes between.
        let size = 64 << 20
        let fd = open(two.a.path("disk.img"), O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        let head = [UInt8](repeating: 0x41, count: 4096)
        _ = head.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, 0) }
        _ = head.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, off_t(size - 4096)) }
        close(fd)
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.replaceSubrange(0..<4096, with: head)
        bytes.replaceSubrange((size - 4096)..<size, with: head)
        try await two.waitForBoth(["disk.img": contentHash(bytes)], timeout: .seconds(60))
        var st = stat()
        #expect(lstat(two.b.path("disk.img"), &st) == 0)
        #expect(Int(st.st_size) == size)
        let allocated = Int(st.st_blocks) * 512
        #expect(allocated < 16 << 20, "\(allocated) bytes allocated for a file of \(size) with 8 KiB of data")
    }

    /// Small files come in a batch, where only a skipped chunk of zeros sets the size: one all
    /// zeros, and one whose zeros end it, arrive whole, at their size, by the batch (a file the
    /// batch cannot stage goes one by one, which would hide a batch that got the size wrong).
    @Test func smallFilesOfZerosArriveWholeInABatch() async throws {
        let two = try await TwoDevices.start("sparse-small")
        defer { two.stop() }
        await two.b.stop()
        let zeros = [UInt8](repeating: 0, count: 600 << 10)
        let tail = [UInt8](repeating: 0x42, count: 300 << 10) + [UInt8](repeating: 0, count: 500 << 10)
        try writeFile(two.a.path("zeros.bin"), zeros)
        try writeFile(two.a.path("tail.bin"), tail)
        try await two.a.waitUntilIdle()
        try await two.b.start()
        try await two.waitForBoth(["zeros.bin": contentHash(zeros), "tail.bin": contentHash(tail)], timeout: .seconds(60))
        for (name, bytes) in [("zeros.bin", zeros), ("tail.bin", tail)] {
            var st = stat()
            #expect(lstat(two.b.path(name), &st) == 0)
            #expect(Int(st.st_size) == bytes.count, "\(name)")
        }
        let batched = two.b.log.split(separator: "\n").filter { $0.contains("downloaded a batch of small files") }
            .compactMap { $0.firstMatch(of: /files=(\d+)/).flatMap { Int($0.1) } }
        // (Failed once in a loaded PostgreSQL pass, after 29 s, cause not known: the story beta told is shown.)
        let story = two.b.log.split(separator: "\n").filter { $0.contains("zeros.bin") || $0.contains("tail.bin") || $0.contains("batch") }
        #expect(batched.reduce(0, +) == 2, "files placed by batches: \(batched); beta's log about them:\n\(story.suffix(30).joined(separator: "\n"))")
    }
}
