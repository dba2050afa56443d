import Foundation
import SyncCore
import Testing
import TestSupport

/// Real inotify on temp folders: the workloads editors and tools produce end
/// with the server holding exactly the right tree, without spurious revisions.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct WatcherTests {
    static let dir = Hashing.contentHash(chunks: [])

    @Test func vimStyleSaveIsOneModification() async throws {
        let rig = try await Rig.start("vim")
        defer { rig.stop() }
        let d = rig.daemon
        try writeFile(d.path("notes.txt"), "first\n")
        try await rig.waitForServerTree(["notes.txt": contentHash("first\n")])
        // vim: probe file 4913, rename the original to a backup, write anew, drop the backup.
        try writeFile(d.path("4913"), [])
        try FileManager.default.removeItem(atPath: d.path("4913"))
        try FileManager.default.moveItem(atPath: d.path("notes.txt"), toPath: d.path("notes.txt~"))
        try writeFile(d.path("notes.txt"), "second\n")
        try FileManager.default.removeItem(atPath: d.path("notes.txt~"))
        try await rig.waitForServerTree(["notes.txt": contentHash("second\n")])
        try await d.waitUntilIdle()
        let rev = try await rig.folderRev()
        let history = rev == 2 ? "" : try await rig.history()
        #expect(rev == 2, "one create, one modification; the server has:\n\(history)")
    }

    @Test func tempAndRenameSaveIsOneModification() async throws {
        let rig = try await Rig.start("atomic")
        defer { rig.stop() }
        let d = rig.daemon
        try writeFile(d.path("doc.txt"), "v1")
        try await rig.waitForServerTree(["doc.txt": contentHash("v1")])
        try writeFile(d.path(".goutputstream-ABC123"), "v2")
        #expect(rename(d.path(".goutputstream-ABC123"), d.path("doc.txt")) == 0)
        try await rig.waitForServerTree(["doc.txt": contentHash("v2")])
        try await d.waitUntilIdle()
        #expect(try await rig.folderRev() == 2, "one create, one modification")
    }

    @Test func deepMkdirThenWrite() async throws {
        let rig = try await Rig.start("mkdirp")
        defer { rig.stop() }
        let d = rig.daemon
        try FileManager.default.createDirectory(atPath: d.path("a/b/c/d"), withIntermediateDirectories: true)
        try writeFile(d.path("a/b/c/d/f"), "x")
        try await rig.waitForServerTree([
            "a": Self.dir, "a/b": Self.dir, "a/b/c": Self.dir, "a/b/c/d": Self.dir, "a/b/c/d/f": contentHash("x"),
        ])
    }

    @Test func movingADirectoryUploadsNoContent() async throws {
        let rig = try await Rig.start("movedir")
        defer { rig.stop() }
        let d = rig.daemon
        try FileManager.default.createDirectory(atPath: d.path("src/inner"), withIntermediateDirectories: true)
        var expected: [String: String] = ["src": Self.dir, "src/inner": Self.dir]
        for i in 0..<1_000 {
            let sub = i % 2 == 0 ? "src" : "src/inner"
            try writeFile(d.path("\(sub)/file\(i).txt"), "payload \(i)")
            expected["\(sub)/file\(i).txt"] = contentHash("payload \(i)")
        }
        try await rig.waitForServerTree(expected)
        let chunksBefore = try chunkFiles(rig.server)
        try FileManager.default.moveItem(atPath: d.path("src"), toPath: d.path("dst"))
        expected = Dictionary(uniqueKeysWithValues: expected.map { ("dst" + $0.key.dropFirst(3), $0.value) })
        try await rig.waitForServerTree(expected)
        #expect(try chunkFiles(rig.server) == chunksBefore, "no chunk was uploaded again")

    }

    /// `mkdir d/x && mv d/x s` faster than the watcher can add the new
    /// directory's watch: once synced, what is made in it later is still seen.
    @Test func aDirectoryMovedTheMomentItIsCreated() async throws {
        let rig = try await Rig.start("mkdir-mv")
        defer { rig.stop() }
        let d = rig.daemon
        try FileManager.default.createDirectory(atPath: d.path("d"), withIntermediateDirectories: true)
        var expected: [String: String] = ["d": Self.dir]
        for i in 0..<200 {
            guard mkdir(d.path("d/x\(i)"), 0o755) == 0, rename(d.path("d/x\(i)"), d.path("s\(i)")) == 0 else {
                throw POSIXError(.EIO)
            }
            expected["s\(i)"] = Self.dir
        }
        try await rig.waitForServerTree(expected)
        for i in 0..<200 {
            try FileManager.default.createDirectory(atPath: d.path("s\(i)/in"), withIntermediateDirectories: false)
            try writeFile(d.path("s\(i)/in/f"), "file \(i)")
            expected["s\(i)/in"] = Self.dir
            expected["s\(i)/in/f"] = contentHash("file \(i)")
        }
        try await rig.waitForServerTree(expected)
    }

    @Test func movingOutAndBackIn() async throws {
        let rig = try await Rig.start("outin")
        defer { rig.stop() }
        let d = rig.daemon
        try FileManager.default.createDirectory(atPath: d.path("keep"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: d.path("box"), withIntermediateDirectories: true)
        var expected: [String: String] = ["keep": Self.dir, "box": Self.dir]
        for i in 0..<10 {
            try writeFile(d.path("keep/k\(i)"), "k\(i)")
            expected["keep/k\(i)"] = contentHash("k\(i)")
        }
        for i in 0..<3 {
            try writeFile(d.path("box/b\(i)"), "b\(i)")
            expected["box/b\(i)"] = contentHash("b\(i)")
        }
        try await rig.waitForServerTree(expected)
        let outside = rig.tmp.path + "/outside"
        try FileManager.default.moveItem(atPath: d.path("box"), toPath: outside)
        let box = expected.filter { $0.key.hasPrefix("box") }
        for key in box.keys { expected[key] = nil }
        try await rig.waitForServerTree(expected)
        try FileManager.default.moveItem(atPath: outside, toPath: d.path("back"))
        for (key, value) in box { expected["back" + key.dropFirst(3)] = value }
        try await rig.waitForServerTree(expected)
    }

    /// Watches follow renamed directories: after `mv src dst`, moving `dst/inner`
    /// out deletes exactly that subtree, and writes in the tree that left the
    /// folder are not reported as paths inside it.
    @Test func movingOutOfARenamedDirectory() async throws {
        let rig = try await Rig.start("renamed-out")
        defer { rig.stop() }
        let d = rig.daemon
        try FileManager.default.createDirectory(atPath: d.path("src/inner/deep"), withIntermediateDirectories: true)
        try writeFile(d.path("src/top.txt"), "top")
        try writeFile(d.path("src/inner/i.txt"), "i")
        try writeFile(d.path("src/inner/deep/d.txt"), "d")
        try await rig.waitForServerTree([
            "src": Self.dir, "src/top.txt": contentHash("top"), "src/inner": Self.dir,
            "src/inner/i.txt": contentHash("i"), "src/inner/deep": Self.dir, "src/inner/deep/d.txt": contentHash("d"),
        ])
        try FileManager.default.moveItem(atPath: d.path("src"), toPath: d.path("dst"))
        try await rig.waitForServerTree([
            "dst": Self.dir, "dst/top.txt": contentHash("top"), "dst/inner": Self.dir,
            "dst/inner/i.txt": contentHash("i"), "dst/inner/deep": Self.dir, "dst/inner/deep/d.txt": contentHash("d"),
        ])
        let outside = rig.tmp.path + "/gone-inner"
        try FileManager.default.moveItem(atPath: d.path("dst/inner"), toPath: outside)
        try await rig.waitForServerTree(["dst": Self.dir, "dst/top.txt": contentHash("top")])
        try await eventually("watches of the tree that left are dropped (root and dst remain)") {
            try d.inotifyWatchCount() == 2
        }
        // The tree outside is no longer ours: its events must not turn into paths in the folder.
        try writeFile(outside + "/deep/d.txt", "changed outside")
        try writeFile(outside + "/deep/new.txt", "new outside")
        // A new directory with the old name is watched afresh.
        try FileManager.default.createDirectory(atPath: d.path("dst/inner/deep"), withIntermediateDirectories: true)
        try writeFile(d.path("dst/inner/deep/fresh.txt"), "fresh")
        try await rig.waitForServerTree([
            "dst": Self.dir, "dst/top.txt": contentHash("top"), "dst/inner": Self.dir,
            "dst/inner/deep": Self.dir, "dst/inner/deep/fresh.txt": contentHash("fresh"),
        ])
        try writeFile(d.path("dst/inner/deep/fresh.txt"), "fresh 2")
        try await rig.waitForServerTree([
            "dst": Self.dir, "dst/top.txt": contentHash("top"), "dst/inner": Self.dir,
            "dst/inner/deep": Self.dir, "dst/inner/deep/fresh.txt": contentHash("fresh 2"),
        ])
    }

    /// Out of inotify watches (a real ENOSPC, in a user namespace with a low
    /// limit): status names the sysctl and the number needed, and the folder
    /// keeps syncing through periodic scans.
    @Test func outOfWatchesFallsBackToScans() async throws {
        let rig = try await Rig.start("enospc", extraFolderConfig: #"rescan_interval = "1s""#, startDaemon: false)
        defer { rig.stop() }
        let d = rig.daemon
        var expected: [String: String] = [:]
        for i in 0..<10 {
            try FileManager.default.createDirectory(atPath: d.path("dir\(i)"), withIntermediateDirectories: true)
            expected["dir\(i)"] = Self.dir
        }
        try await d.start(inotifyWatchLimit: 4)
        try await rig.waitForServerTree(expected)
        var message = ""
        try await eventually("status reports the watch limit") {
            message = try await d.status()?.errors.first?.message ?? ""
            return message.contains("fs.inotify.max_user_watches")
        }
        #expect(message.contains("needs 11 watches"), "\(message)")
        for i in 0..<10 {
            try writeFile(d.path("dir\(i)/f.txt"), "in \(i)")
            expected["dir\(i)/f.txt"] = contentHash("in \(i)")
        }
        try await rig.waitForServerTree(expected)
    }

    @Test func ignoredPathsNeverReachTheServer() async throws {
        let rig = try await Rig.start("ignore", extraFolderConfig: #"ignore = ["*.log", "build/"]"#)
        defer { rig.stop() }
        let d = rig.daemon
        try writeFile(d.path(".syncignore"), "secret/\n!keep.log\n")
        try FileManager.default.createDirectory(atPath: d.path("secret"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: d.path("build/out"), withIntermediateDirectories: true)
        try writeFile(d.path("secret/key"), "hush")
        try writeFile(d.path("build/out/a.o"), "obj")
        try writeFile(d.path("debug.log"), "noise")
        try writeFile(d.path("keep.log"), "wanted")
        try writeFile(d.path(".x.swp"), "vim swap")
        try writeFile(d.path("real.txt"), "real")
        try await rig.waitForServerTree([
            ".syncignore": contentHash("secret/\n!keep.log\n"), "keep.log": contentHash("wanted"),
            "real.txt": contentHash("real"),
        ])
        try await d.waitUntilIdle()
        #expect(try await rig.server.client(credential: rig.credential).tree(folder: "docs").count == 3)
    }

    @Test func aFileAppendedForSecondsEndsInItsFinalState() async throws {
        let rig = try await Rig.start("append")
        defer { rig.stop() }
        let d = rig.daemon
        let fd = open(d.path("growing.log.txt"), O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var all = ""
        for i in 0..<60 {
            let line = "line \(i)\n"
            all += line
            _ = line.withCString { write(fd, $0, strlen($0)) }
            try await Task.sleep(for: .milliseconds(50))
        }
        close(fd)
        try await rig.waitForServerTree(["growing.log.txt": contentHash(all)])
    }

    @Test func anEditWhileStoppedIsUploadedAtStart() async throws {
        // (Deleting most of this tiny folder is a delete wave: the guard is not what is tested here.)
        let rig = try await Rig.start("offline-edit", extraFolderConfig: "max_delete_fraction = 1")
        defer { rig.stop() }
        let d = rig.daemon
        try writeFile(d.path("a.txt"), "before")
        try writeFile(d.path("gone.txt"), "bye")
        try await rig.waitForServerTree(["a.txt": contentHash("before"), "gone.txt": contentHash("bye")])
        await d.stop()
        try writeFile(d.path("a.txt"), "edited while stopped")
        try FileManager.default.removeItem(atPath: d.path("gone.txt"))
        try FileManager.default.moveItem(atPath: d.path("a.txt"), toPath: d.path("b.txt"))
        try await d.start()
        try await rig.waitForServerTree(["b.txt": contentHash("edited while stopped")])
    }

    @Test func aBurstBeyondTheKernelQueueConverges() async throws {
        let rig = try await Rig.start("burst")
        defer { rig.stop() }
        let d = rig.daemon
        var expected: [String: String] = [:]
        let same = contentHash("same")
        for dirIndex in 0..<50 {
            let dir = "d\(dirIndex)"
            try FileManager.default.createDirectory(atPath: d.path(dir), withIntermediateDirectories: true)
            expected[dir] = Self.dir
            for i in 0..<1_000 {
                try writeFile(d.path("\(dir)/f\(i)"), "same")
                expected["\(dir)/f\(i)"] = same
            }
        }
        try await rig.waitForServerTree(expected, timeout: .seconds(300))
    }

    func chunkFiles(_ server: ServerProcess) throws -> Int {
        let root = server.dir + "/data/chunks"
        guard let walker = FileManager.default.enumerator(atPath: root) else { return 0 }
        var n = 0
        while let p = walker.nextObject() as? String {
            if !p.hasPrefix("tmp") && (p as NSString).lastPathComponent.count == 64 { n += 1 }
        }
        return n
    }
}

/// A file that is written without pause is still synced at a bounded interval.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct LongWriterTests {
    @Test func aFileWrittenContinuouslyIsSyncedBeforeItIsClosed() async throws {
        let rig = try await Rig.start("longwriter")
        defer { rig.stop() }
        let fd = open(rig.daemon.path("stream.bin"), O_WRONLY | O_CREAT | O_APPEND, 0o644)
        defer { close(fd) }
        let client = rig.server.client(credential: rig.credential)
        // Keep writing (never closing) until some version reaches the server.
        let seen = try await waitUntil(deadline: ContinuousClock.now + .seconds(30), poll: .zero) {
            _ = "tick\n".withCString { write(fd, $0, 5) }
            try await Task.sleep(for: .milliseconds(20))
            return try await client.tree(folder: "docs")["stream.bin"] != nil
        }
        #expect(seen, "an open, continuously written file reached the server")
    }
}
