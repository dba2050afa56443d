import Foundation
import SyncControl
import Testing
import TestSupport

/// SIGHUP on real processes: syncd re-reads its config (folders added and removed while the
/// others go on, a broken file reported and the config in force kept), sync-server survives
/// it and keeps serving. Issue 11, point 2.
@Suite struct ReloadTests {
    /// A server with folders docs and notes, and a device allowed both, syncing docs only.
    struct TwoFolderRig {
        let tmp: TemporaryDirectory
        let server: ServerProcess
        let credential: String
        let daemon: DaemonProcess
        let notesPath: String

        static func start(_ label: String) async throws -> TwoFolderRig {
            let tmp = try TemporaryDirectory(label)
            let server = try ServerProcess(dir: try tmp.sub("server"))
            try await server.admin(["folder", "add", "docs"])
            try await server.admin(["folder", "add", "notes"])
            let credential = try await server.admin(["device", "add", "--name", "laptop", "--folder", "docs", "--folder", "notes"])
            try await server.start()
            let device = try tmp.sub("device")
            let daemon = try DaemonProcess(dir: device, folderID: "docs", serverURL: server.url, credential: credential)
            let notesPath = device + "/notes"
            try FileManager.default.createDirectory(atPath: notesPath, withIntermediateDirectories: true)
            try await daemon.start()
            return TwoFolderRig(tmp: tmp, server: server, credential: credential, daemon: daemon, notesPath: notesPath)
        }

        func stop() {
            daemon.stop()
            server.stop()
            tmp.remove()
        }

        var notesTable: String { "\n[[folder]]\nid = \"notes\"\npath = \"\(notesPath)\"\nsettle = \"50ms\"\n" }

        func waitForServer(_ folder: String, _ expected: [String: String]) async throws {
            let client = server.client(credential: credential)
            var last: [String: String] = [:]
            do {
                try await eventually("server tree of \(folder) matches", timeout: .seconds(30)) {
                    last = try await client.tree(folder: folder).mapValues(\.contentHash)
                    return last == expected
                }
            } catch {
                throw TestFailure("\(error); server has \(last)\n--- syncd log tail:\n\(daemon.log.suffix(3000))")
            }
        }

        func folderIDs() async throws -> [String] {
            try await daemon.control.status().folders.map(\.id).sorted()
        }

        func hangUp() throws {
            guard kill(daemon.pid, SIGHUP) == 0 else { throw TestFailure("kill -HUP \(daemon.pid): errno \(errno)") }
        }
    }

    @Test func sighupStartsAnAddedFolderAndStopsARemovedOneWhileTheOtherSyncs() async throws {
        let rig = try await TwoFolderRig.start("reload-folders")
        defer { rig.stop() }
        let pid = rig.daemon.pid
        try writeFile(rig.daemon.path("a.txt"), "before")
        try await rig.waitForServer("docs", ["a.txt": contentHash("before")])

        let original = try String(contentsOfFile: rig.daemon.configPath, encoding: .utf8)
        try writeFile(rig.daemon.configPath, original + rig.notesTable)
        try writeFile(rig.notesPath + "/n.txt", "note")
        try rig.hangUp()
        try await eventually("syncd runs notes too") { try await rig.folderIDs() == ["docs", "notes"] }
        try await rig.waitForServer("notes", ["n.txt": contentHash("note")])
        try writeFile(rig.daemon.path("b.txt"), "after")
        try await rig.waitForServer("docs", ["a.txt": contentHash("before"), "b.txt": contentHash("after")])
        #expect(rig.daemon.pid == pid && rig.daemon.isRunning)

        // Removed again: notes stops (a new file there stays local), docs goes on.
        try writeFile(rig.daemon.configPath, original)
        try rig.hangUp()
        try await eventually("syncd runs docs only") { try await rig.folderIDs() == ["docs"] }
        try writeFile(rig.notesPath + "/late.txt", "not synced")
        try writeFile(rig.daemon.path("c.txt"), "still")
        try await rig.waitForServer(
            "docs", ["a.txt": contentHash("before"), "b.txt": contentHash("after"), "c.txt": contentHash("still")])
        try await rig.waitForServer("notes", ["n.txt": contentHash("note")])
        #expect(rig.daemon.pid == pid && rig.daemon.isRunning)
        #expect(rig.daemon.log.contains("reloaded \(rig.daemon.configPath): added folder(s) notes"))
    }

    @Test func aBrokenConfigIsReportedAndTheOneInForceKept() async throws {
        let rig = try await TwoFolderRig.start("reload-broken")
        defer { rig.stop() }
        let pid = rig.daemon.pid
        let original = try String(contentsOfFile: rig.daemon.configPath, encoding: .utf8)
        // The new folder table is there, but with an id that is not valid: nothing of it applies.
        try writeFile(rig.daemon.configPath, original + rig.notesTable.replacingOccurrences(of: "\"notes\"", with: "\"no/tes\""))
        try rig.hangUp()
        try await eventually("the log says why the reload failed") {
            rig.daemon.log.contains("reload failed: \(rig.daemon.configPath)") && rig.daemon.log.contains("invalid folder id")
        }
        #expect(rig.daemon.log.contains("the config in force is kept"))
        try writeFile(rig.daemon.path("a.txt"), "still syncing")
        try await rig.waitForServer("docs", ["a.txt": contentHash("still syncing")])
        #expect(try await rig.folderIDs() == ["docs"])
        #expect(rig.daemon.pid == pid && rig.daemon.isRunning)
    }

    @Test func sighupAppliesNewIgnoreRulesUploadLimitAndLogLevel() async throws {
        let rig = try await Rig.start("reload-ignore")
        defer { rig.stop() }
        let pid = rig.daemon.pid
        #expect(rig.daemon.log.contains(" debug "))
        let config = try String(contentsOfFile: rig.daemon.configPath, encoding: .utf8)
            .replacingOccurrences(of: "log_level = \"debug\"", with: "log_level = \"warning\"")
        // The [[folder]] table is the file's last: its new ignore list, then a [transfer] table.
        try writeFile(
            rig.daemon.configPath, config + "\nignore = [\"*.tmp\"]\n[transfer]\nupload_limit = \"512KiB/s\"\n")
        guard kill(pid, SIGHUP) == 0 else { throw TestFailure("kill -HUP: errno \(errno)") }
        try await eventually("syncd logs the reload") { rig.daemon.log.contains("reloaded \(rig.daemon.configPath)") }
        #expect(
            rig.daemon.log.contains("new ignore rules for docs; log level warning; upload limit 512KiB/s, download limit unlimited"))
        try writeFile(rig.daemon.path("skip.tmp"), "ignored now")
        try writeFile(rig.daemon.path("keep.txt"), "kept")
        try await rig.waitForServerTree(["keep.txt": contentHash("kept")])
        try await rig.daemon.waitUntilIdle()
        try await rig.waitForServerTree(["keep.txt": contentHash("kept")])
        // 2 MiB at 512 KiB/s: at least about 3.75 s (a lower bound only, see BandwidthLimitTests).
        let bytes = pseudoRandomBytes(count: 2 << 20, seed: 21)
        let started = ContinuousClock.now
        try writeFile(rig.daemon.path("big.bin"), bytes)
        try await rig.waitForServerTree(["keep.txt": contentHash("kept"), "big.bin": contentHash(bytes)])
        let took = ContinuousClock.now - started
        #expect(took >= .milliseconds(3500), "2 MiB went up in \(took) after a reload set upload_limit 512KiB/s")
        #expect(rig.daemon.pid == pid && rig.daemon.isRunning)
        // Nothing below warning since the reload, though files were scanned and uploaded.
        let log = rig.daemon.log
        let since = log.range(of: "reloaded \(rig.daemon.configPath)").map { log[$0.upperBound...] } ?? ""
        let chatty = since.split(separator: "\n").filter { $0.contains(" debug ") || $0.contains(" info ") }
        #expect(chatty.isEmpty, "\(chatty.prefix(3))")
    }

    @Test func syncServerSurvivesSighupAndKeepsServing() async throws {
        let rig = try await Rig.start("reload-server")
        defer { rig.stop() }
        let pid = rig.server.pid
        let original = try String(contentsOfFile: rig.server.configPath, encoding: .utf8)
        // Retention applies at once; a new listen address needs a restart.
        let changed = original.replacingOccurrences(of: "retention = \"30d\"", with: "retention = \"7d\"")
            .replacingOccurrences(of: "listen = \"127.0.0.1:\(rig.server.port)\"", with: "listen = \"127.0.0.1:1\"")
        try writeFile(rig.server.configPath, changed)
        guard kill(pid, SIGHUP) == 0 else { throw TestFailure("kill -HUP: errno \(errno)") }
        try await eventually("the server logs the reload") { rig.server.log.contains("reloaded \(rig.server.configPath)") }
        #expect(rig.server.log.contains("server.listen changed; this needs a restart"))
        #expect(rig.server.log.contains("retention"))
        // A health probe gives up after 5 s: one CI run, with every suite's processes busy,
        // saw that happen once.
        try await eventually("the server answers after the reload", timeout: .seconds(30)) { await rig.server.healthy() }

        try writeFile(rig.server.configPath, original + "\n[storage2]\n")
        guard kill(pid, SIGHUP) == 0 else { throw TestFailure("kill -HUP: errno \(errno)") }
        try await eventually("the server logs the failed reload") { rig.server.log.contains("reload failed: \(rig.server.configPath)") }
        #expect(rig.server.pid == pid && rig.server.isRunning)
        try await eventually("the server answers after the failed reload", timeout: .seconds(30)) { await rig.server.healthy() }
        // And it still syncs.
        try writeFile(rig.daemon.path("x.txt"), "served")
        try await rig.waitForServerTree(["x.txt": contentHash("served")])
    }
}
