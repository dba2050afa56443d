import Foundation
import SyncCore
import Testing
import TestSupport

/// Reduced reproductions of the sync bugs the randomized convergence test
/// (ConvergenceTests.swift) found. Each asserts the correct behaviour; all
/// are fixed and run always
/// (`swift test --skip-build --filter ConvergenceBugReproTests`).
@Suite(.serialized, .timeLimit(.minutes(8)))
struct ConvergenceBugReproTests {
    static let dir = Hashing.contentHash(chunks: [])

    static func transferring(_ d: DaemonProcess, _ path: String) async throws -> Bool {
        try await d.status()?.transferring.contains { $0.path == path } == true
    }

    /// Bug 1 (seeds 1, 2, 3, 6, 18, 54, …): `rm -r d` of a synced directory leaves the journal row of
    /// `d/f.txt` in state `running` for good: the folder reports `syncing` forever, and a
    /// new `d/f.txt` never reaches the server (its enqueue only marks the stuck row dirty).
    @Test func removingADirectoryTreeLeavesNoWorkBehind() async throws {
        // (Deleting most of this tiny folder is a delete wave: the guard is not what is tested here.)
        let rig = try await TwoDevices.start("bug-rmr", extraFolderConfig: "max_delete_fraction = 1")
        defer { rig.stop() }
        let a = rig.a
        try writeFile(a.path("anchor.txt"), "anchor")
        try FileManager.default.createDirectory(atPath: a.path("d"), withIntermediateDirectories: true)
        try writeFile(a.path("d/f.txt"), "one")
        try await rig.waitForBoth(["anchor.txt": contentHash("anchor"), "d": Self.dir, "d/f.txt": contentHash("one")])

        try FileManager.default.removeItem(atPath: a.path("d"))
        try await rig.waitForBoth(["anchor.txt": contentHash("anchor")])
        try await eventually("alpha is idle after rm -r", timeout: .seconds(10)) { try await a.status()?.state == .idle }

        try FileManager.default.createDirectory(atPath: a.path("d"), withIntermediateDirectories: true)
        try writeFile(a.path("d/f.txt"), "two")
        try await rig.waitForBoth(
            ["anchor.txt": contentHash("anchor"), "d": Self.dir, "d/f.txt": contentHash("two")], timeout: .seconds(15))
    }

    /// Bug 2 (seeds 6, 29, 156): a feed page that takes long to apply (a big download first)
    /// carries this device's own entry for `z.txt` at v1; meanwhile the device writes and
    /// commits v2; the stale v1 entry is then planned as a download (base rev != entry rev,
    /// local == base) and overwrites v2 on disk. Both devices end idle, alpha with v1.
    /// A round reproduces it about 2 times in 3 (the echo filter in RemoteApplier hides it
    /// when v1's push is still being recorded as the page arrives), so up to 4 rounds run.
    /// Alpha talks through a proxy that holds each chunk download's reply 50 ms, so that
    /// the big download lasts long enough to be seen however fast the machine is.
    @Test func aStaleFeedEntryDoesNotOverwriteANewerLocalCommit() async throws {
        let (rig, proxy) = try await TwoDevices.startBehindProxy("bug-stale", throughProxy: ["alpha"])
        defer { rig.stop() }
        proxy.delayReplies(toRequestsContaining: "GET /v1/folders/docs/chunks/", by: .milliseconds(50))
        let (a, b) = (rig.a, rig.b)
        let credential = try String(contentsOfFile: a.dir + "/credential", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let client = rig.server.client(credential: credential)
        try writeFile(a.path("anchor.txt"), "anchor")
        try await rig.waitForBoth(["anchor.txt": contentHash("anchor")])

        // The window depends on scheduling: up to four rounds, each on a fresh file; at
        // least one must open it, or nothing was checked and the test fails.
        var checked = 0
        for round in 1...4 {
            let z = "z\(round).txt", big = "a\(round).bin"
            // Park alpha's feed loop in its paused sleep: the long-poll in flight returns with
            // wake.txt, which a paused folder does not apply (its cursor stays).
            _ = try await a.control.pause(folder: nil)
            try writeFile(b.path("wake\(round).txt"), "wake")
            try await eventually("wake\(round).txt on the server") { try await client.tree(folder: "docs")["wake\(round).txt"] != nil }
            try await Task.sleep(for: .milliseconds(300))
            // One page for alpha, once resumed: [wake, big (from beta), z v1 (alpha's own)].
            try writeFile(b.path(big), pseudoRandomBytes(count: 100 << 20, seed: UInt64(round)))
            // (A clean-clone CI run waited 150 s here in round 4 under load, with no more to go
            // on: the devices' state and logs are shown if it comes back.)
            do {
                try await eventually("\(big) on the server", timeout: .seconds(300), poll: .milliseconds(5)) {
                    try await client.tree(folder: "docs")[big] != nil
                }
            } catch {
                throw TestFailure("round \(round): \(error)" + (await rig.postMortem()))
            }
            try writeFile(a.path(z), "v1")
            _ = try await a.control.resume(folder: nil)
            try await eventually("v1 on the server", timeout: .seconds(150), poll: .milliseconds(2)) {
                try await client.tree(folder: "docs")[z]?.contentHash == contentHash("v1")
            }
            // While alpha downloads the big file, v2 is written and committed. Under load the
            // download may be over before we look (the file appears only when complete): then
            // this round cannot open the window, and the next one tries.
            var downloading = false
            try await eventually("alpha downloads \(big), or has it", timeout: .seconds(60), poll: .milliseconds(5)) {
                downloading = try await Self.transferring(a, big)
                return downloading || FileManager.default.fileExists(atPath: a.path(big))
            }
            if !downloading {
                print("round \(round): alpha had \(big) before the window could be caught; next round")
                continue
            }
            try writeFile(a.path(z), "v2")
            try await eventually("v2 on the server", timeout: .seconds(150), poll: .milliseconds(5)) {
                try await client.tree(folder: "docs")[z]?.contentHash == contentHash("v2")
            }
            try await eventually("alpha done with \(big)", timeout: .seconds(60)) {
                let busy = try await Self.transferring(a, big)
                let idle = try await a.status()?.state == .idle
                return !busy && idle
            }
            try await Task.sleep(for: .seconds(1))
            let onDisk = try String(contentsOfFile: a.path(z), encoding: .utf8)
            checked += 1
            #expect(onDisk == "v2", "round \(round): alpha went back to its own older \(z) while the server has v2")
            if onDisk != "v2" { return }
        }
        #expect(checked > 0, "no round caught alpha mid-download: nothing was checked")
    }

    /// Bug 3 (seeds 38, 40): beta moves `d` to `e` while its queue is busy; alpha edits `d/x.txt`;
    /// beta downloads it (edit beats delete), which re-creates `d`; beta's queued push of `d`
    /// then finds a directory there and sends no tombstones for `d/f1.txt`. Beta's index
    /// still lists `d/f1.txt` as present; alpha and the server keep it, beta does not.
    /// Fixed by server-side moves (decision 0006): the move carries `d` whole, and a
    /// move that falls back gives every synced entry under the old path its own op.
    @Test func aDirectoryMovedAwayAndRecreatedByADownloadStillDeletesItsOldChildren() async throws {
        // Beta's uploads are held to 8 MiB/s: its big upload stays in flight for seconds, so
        // the move surely happens while its queue is busy (unthrottled, a status poll that
        // waited on a busy daemon could miss the whole upload on a loaded machine).
        let rig = try await TwoDevices.start("bug-mvdir", prepareDevices: { _, beta in
            let config = try String(contentsOfFile: beta.configPath, encoding: .utf8)
            try writeFile(beta.configPath, config + "\n[transfer]\nupload_limit = \"8MiB/s\"\n")
        })
        defer { rig.stop() }
        let (a, b) = (rig.a, rig.b)
        try writeFile(a.path("anchor.txt"), "anchor")
        try FileManager.default.createDirectory(atPath: a.path("d"), withIntermediateDirectories: true)
        try writeFile(a.path("d/f1.txt"), "f1")
        try writeFile(a.path("d/x.txt"), "x0")
        try await rig.waitForBoth([
            "anchor.txt": contentHash("anchor"), "d": Self.dir, "d/f1.txt": contentHash("f1"), "d/x.txt": contentHash("x0"),
        ])
        // Keep beta's queue busy with one big upload (shown as transferring once hashed; at
        // 8 MiB/s it stays so for about 5 s).
        let big = pseudoRandomBytes(count: 40 << 20, seed: 3)
        try writeFile(b.path("big.bin"), big)
        try await eventually("beta uploads big.bin", timeout: .seconds(150), poll: .milliseconds(20)) {
            try await Self.transferring(b, "big.bin")
        }
        try FileManager.default.moveItem(atPath: b.path("d"), toPath: b.path("e"))
        try writeFile(a.path("d/x.txt"), "x1 from alpha")
        try await rig.waitForBoth(
            [
                "anchor.txt": contentHash("anchor"), "big.bin": contentHash(big),
                "e": Self.dir, "e/f1.txt": contentHash("f1"), "e/x.txt": contentHash("x0"),
                // Edit beats delete: alpha's edit of the moved file stays at the old path.
                "d": Self.dir, "d/x.txt": contentHash("x1 from alpha"),
            ], timeout: .seconds(60))
    }

    /// Bug 4 (seed 59), one device: a directory is deleted and made again at the same
    /// path, then renamed; inside it, new entries are reported under its old path
    /// ("subtree scan failed: cannot scan …/p/q/new" in the log), so `r/new` never syncs.
    /// The deletion logs "Failed to remove watch on …/p/q/: Unknown error -1": the watch
    /// table apparently keeps a stale entry for the dead watch, and the rename updates that
    /// one instead of the live watch.
    @Test func aRecreatedThenRenamedDirectoryReportsItsNewPath() async throws {
        let rig = try await Rig.start("bug-watch")
        defer { rig.stop() }
        let d = rig.daemon
        try writeFile(d.path("anchor.txt"), "anchor")
        var expected = ["anchor.txt": contentHash("anchor"), "p": Self.dir, "p/q": Self.dir]
        try FileManager.default.createDirectory(atPath: d.path("p/q"), withIntermediateDirectories: true)
        try await rig.waitForServerTree(expected)
        try FileManager.default.removeItem(atPath: d.path("p/q"))
        expected["p/q"] = nil
        try await rig.waitForServerTree(expected)
        try FileManager.default.createDirectory(atPath: d.path("p/q"), withIntermediateDirectories: true)
        expected["p/q"] = Self.dir
        try await rig.waitForServerTree(expected)
        try FileManager.default.moveItem(atPath: d.path("p/q"), toPath: d.path("r"))
        expected["p/q"] = nil
        expected["r"] = Self.dir
        try await rig.waitForServerTree(expected)

        try FileManager.default.createDirectory(atPath: d.path("r/new"), withIntermediateDirectories: true)
        try writeFile(d.path("r/new/f.txt"), "f")
        expected["r/new"] = Self.dir
        expected["r/new/f.txt"] = contentHash("f")
        try await rig.waitForServerTree(expected, timeout: .seconds(15))
    }
}
