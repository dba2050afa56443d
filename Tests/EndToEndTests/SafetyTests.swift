import Foundation
import SyncCore
import Testing
import TestSupport

/// The guards that keep a mistake on one device from wiping the others.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct SafetyTests {
    /// The wave waits on the device where the deletes happened; once approved there, the
    /// other device applies it without asking, into its trash.
    @Test func aDeleteWaveWaitsWhereItHappenedAndIsFollowedElsewhere() async throws {
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
        // `syncctl deletes` names what is held.
        let listed = try await a.syncctl("deletes", "docs")
        #expect(listed.status == 0)
        #expect(listed.out.hasPrefix("docs: 40 deletes held"), "\(listed.out)")
        #expect(listed.out.contains("\n  f0.txt\n") && listed.out.contains("\n  f39.txt"), "\(listed.out)")
        #expect(!listed.out.contains("f40.txt"))

        // Approve on A: the server drops them, and B follows without being asked.
        let reply = try await a.control.approveDeletes(folder: "docs")
        #expect(reply.released > 0)
        let rest = all.filter { Int($0.key.dropFirst().dropLast(4))! >= 40 }
        try await rig.waitForBoth(rest)
        #expect(try await b.status()?.state != .waitingForApproval)
        let trashed = try localTree(b.dir + "/state/trash").filter { $0.key.hasSuffix(".txt") }
        #expect(trashed.count == 40, "beta's trash holds the 40 files")
    }

    /// `syncctl reject-deletes`: the held wave is dropped and the files come back from the
    /// server on the device that deleted them; nothing is deleted anywhere.
    @Test func aRejectedDeleteWaveBringsTheFilesBack() async throws {
        try await rejectedWaveBringsBack("wave-reject", says: "rejected 33 deletes in: docs; bringing back 33 paths") { rig in
            try FileManager.default.removeItem(atPath: rig.a.path("sub"))
        }
    }

    /// The same for a directory moved out of the folder: one event, one held op (the
    /// directory's); what was in it comes back with it.
    @Test func aRejectedMoveOutOfTheFolderBringsTheFilesBack() async throws {
        try await rejectedWaveBringsBack("wave-reject-move", says: "rejected 1 deletes in: docs; bringing back 33 paths") { rig in
            try FileManager.default.moveItem(atPath: rig.a.path("sub"), toPath: try rig.tmp.sub("elsewhere") + "/sub")
        }
    }

    /// A directory moved out of the folder and made again, empty, at its path while its
    /// delete waits: what was in it comes back into the new one (its held op, on disk again,
    /// is let go; before, nothing came back, and its push then journaled the deletes of
    /// everything that had been in it).
    @Test func aRejectedMoveOutLeavesTheDirectoryMadeAgainAndFillsIt() async throws {
        try await rejectedWaveBringsBack(
            "wave-reject-remade", says: "rejected 0 deletes in: docs; bringing back 32 paths",
            takeAway: { rig in try FileManager.default.moveItem(atPath: rig.a.path("sub"), toPath: try rig.tmp.sub("elsewhere") + "/sub") },
            meanwhile: { rig in
                try FileManager.default.createDirectory(atPath: rig.a.path("sub"), withIntermediateDirectories: true)
                return [:]
            })
    }

    /// A file made again by hand where a held delete is: `reject-deletes` brings the rest back
    /// and leaves it as it is, to go up as what it holds (the server's old version brought
    /// back over it made the new file a conflict copy).
    @Test func aRejectedWaveLeavesAFileMadeAgainMeanwhile() async throws {
        try await rejectedWaveBringsBack(
            "wave-reject-again", says: "rejected 31 deletes in: docs; bringing back 31 paths",
            takeAway: { rig in try FileManager.default.removeItem(atPath: rig.a.path("sub")) },
            meanwhile: { rig in
                try FileManager.default.createDirectory(atPath: rig.a.path("sub"), withIntermediateDirectories: true)
                try writeFile(rig.a.path("sub/r0.txt"), "made again")
                return ["sub/r0.txt": contentHash("made again")]
            })
    }

    /// A held directory that is a file now: the reject is refused with the reason, and
    /// nothing changes (the wave still waits, the server keeps everything); once the file is
    /// moved away, the reject brings it all back, and the moved file goes up as a new one.
    @Test func aRejectWaitsWhileAHeldDirectoryIsAFileNow() async throws {
        try await rejectWaitsWhileNotADirectory(
            "wave-reject-file", blocker: "sub",
            takeAway: { rig in try FileManager.default.removeItem(atPath: rig.a.path("sub")) },
            block: { rig in try writeFile(rig.a.path("sub"), "a file now") },
            unblock: { rig in
                try FileManager.default.moveItem(atPath: rig.a.path("sub"), toPath: rig.a.path("sub.txt"))
                return ["sub.txt": contentHash("a file now")]
            })
    }

    /// The same below a directory made again: `sub` removed (every delete held), made again,
    /// with a file where its directory `deeper` was.
    @Test func aRejectWaitsWhileADirectoryBelowIsAFileNow() async throws {
        try await rejectWaitsWhileNotADirectory(
            "wave-reject-file-below", blocker: "sub/deeper",
            takeAway: { rig in try FileManager.default.removeItem(atPath: rig.a.path("sub")) },
            block: { rig in
                try FileManager.default.createDirectory(atPath: rig.a.path("sub"), withIntermediateDirectories: true)
                try writeFile(rig.a.path("sub/deeper"), "a file now")
            },
            unblock: { rig in
                try FileManager.default.removeItem(atPath: rig.a.path("sub/deeper"))
                return [:]
            })
    }

    /// A directory moved out of the folder (only its own delete held, nothing below it) and a
    /// file made at its path: what the server holds below it cannot come back either.
    @Test func aRejectWaitsWhileADirectoryMovedOutIsAFileNow() async throws {
        try await rejectWaitsWhileNotADirectory(
            "wave-reject-moved-file", blocker: "sub",
            takeAway: { rig in try FileManager.default.moveItem(atPath: rig.a.path("sub"), toPath: try rig.tmp.sub("elsewhere") + "/sub") },
            block: { rig in try writeFile(rig.a.path("sub"), "a file now") },
            unblock: { rig in
                try FileManager.default.moveItem(atPath: rig.a.path("sub"), toPath: rig.a.path("sub.txt"))
                return ["sub.txt": contentHash("a file now")]
            },
            // The file's push over the directory held the deletes of the paths below it: the
            // reject waits for the wave to hold them (a reject while those events are still
            // being taken in leaves the late ones held, for a second reject: docs/reliability.md).
            settled: "\n  sub/r0.txt\n")
    }

    /// Alpha's `sub` (as in `rejectedWaveBringsBack`) is taken away (a held wave); `block`
    /// puts a non-directory at `blocker`; the reject is refused, naming it, and changes
    /// nothing; `unblock` clears it (and says what it added); the reject then brings it all back.
    private func rejectWaitsWhileNotADirectory(
        _ label: String, blocker: String, takeAway: (TwoDevices) throws -> Void, block: (TwoDevices) throws -> Void,
        unblock: (TwoDevices) throws -> [String: String], settled: String? = nil
    ) async throws {
        let rig = try await TwoDevices.start(label)
        defer { rig.stop() }
        let a = rig.a
        let before = try await Self.holdAWave(rig, takeAway: takeAway)
        try block(rig)
        let refused = try await a.syncctl("reject-deletes", "docs")
        #expect(refused.status != 0)
        #expect(refused.err.contains("\(blocker) was a directory when the deletes were held, and is a file now"), "\(refused.err)")
        #expect(refused.err.contains("Nothing was changed"), "\(refused.err)")
        #expect(try await a.status()?.state == .waitingForApproval)
        #expect(!(try await a.syncctl("deletes", "docs").out.hasPrefix("docs: no deletes held")))
        let credA = try String(contentsOfFile: a.dir + "/credential", encoding: .utf8)
        #expect(try await rig.server.client(credential: credA).tree(folder: "docs").count == before.count)

        let added = try unblock(rig)
        if let settled {
            var said = ""
            do {
                try await eventually("the wave holds \(settled)") {
                    said = try await a.syncctl("deletes", "docs", "--all").out
                    return said.contains(settled)
                }
            } catch {
                throw TestFailure("\(error); last said:\n\(said)")
            }
        }
        let rejected = try await a.syncctl("reject-deletes", "docs")
        #expect(rejected.status == 0, "\(rejected.err)")
        try await rig.waitForBoth(before.merging(added) { _, new in new })
        try await eventually("alpha is idle") { try await a.status()?.state == .idle }
    }

    /// Alpha's `sub` (30 files, and `deeper/d.txt`) and 5 files beside it, synced on both
    /// devices; then `takeAway` makes a delete wave, which alpha holds. Returns the tree synced.
    private static func holdAWave(_ rig: TwoDevices, takeAway: (TwoDevices) throws -> Void) async throws -> [String: String] {
        let a = rig.a
        try FileManager.default.createDirectory(atPath: a.path("sub/deeper"), withIntermediateDirectories: true)
        for i in 0..<30 { try writeFile(a.path("sub/r\(i).txt"), "keep \(i)") }
        try writeFile(a.path("sub/deeper/d.txt"), "deeper")
        for i in 0..<5 { try writeFile(a.path("top\(i).txt"), "top \(i)") }
        try await rig.waitForBoth(try localTree(a.folderPath))
        let before = try localTree(a.folderPath)
        try takeAway(rig)
        try await eventually("alpha waits for approval") { try await a.status()?.state == .waitingForApproval }
        return before
    }

    /// Alpha's `sub` (30 files, and `deeper/d.txt`) and 5 files beside it, synced; `takeAway`
    /// removes `sub` (a delete wave, held); `meanwhile` changes what it likes while the wave
    /// waits (and says what changed: path → content hash); `reject-deletes` says `says` and
    /// everything comes back on both devices and stays on the server, as `meanwhile` left it.
    private func rejectedWaveBringsBack(
        _ label: String, says: String, takeAway: (TwoDevices) throws -> Void,
        meanwhile: (TwoDevices) throws -> [String: String] = { _ in [:] }
    ) async throws {
        let rig = try await TwoDevices.start(label)
        defer { rig.stop() }
        let a = rig.a
        let before = try await Self.holdAWave(rig, takeAway: takeAway)
        let expected = before.merging(try meanwhile(rig)) { _, new in new }
        let rejected = try await a.syncctl("reject-deletes", "docs")
        #expect(rejected.status == 0, "\(rejected.err)")
        #expect(rejected.out.contains(says), "\(rejected.out)")
        try await rig.waitForBoth(expected)
        try await eventually("alpha is idle") { try await a.status()?.state == .idle }
        #expect(try await a.syncctl("deletes", "docs").out.hasPrefix("docs: no deletes held"))
        let credA = try String(contentsOfFile: a.dir + "/credential", encoding: .utf8)
        #expect(try await rig.server.client(credential: credA).tree(folder: "docs").count == before.count)
    }

    /// No small-folder exemption: all five files of a five-file folder deleted while the
    /// daemon runs (not the root: its contents) wait where it happened. (The absolute count,
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
        await d.stop()
        for i in 0..<5 { try FileManager.default.removeItem(atPath: d.path("keep\(i).txt")) }
        try await d.start(waitUntilRunning: false)
        try await d.waitUntil(.error)
        #expect(try await rig.server.client(credential: rig.credential).tree(folder: "docs") .mapValues(\.contentHash) == expected)
    }

    /// The same when the daemon stopped between the server's commit and its record here:
    /// at the restart only the commit outbox says the server has the file, and the first
    /// scan runs before the outbox is sent again. (It took the empty root as deletes: in CI,
    /// of 5 files, held as a wave; of one file, as here, pushed: the daemon went on to idle.)
    @Test func anEmptiedRootWhoseCommitWasNeverRecordedDeletesNothing() async throws {
        let rig = try await Rig.start("emptied-unrecorded", startDaemon: false)
        defer { rig.stop() }
        let d = rig.daemon
        try await d.start(environment: ["SYNCD_CRASH_POINT": "after-commit:keep.txt"])
        try writeFile(d.path("keep.txt"), "kept")
        #expect(try await d.waitForExit(timeout: .seconds(30)), "the crash point did not fire")
        let expected = ["keep.txt": contentHash("kept")]
        try await rig.waitForServerTree(expected)
        try FileManager.default.removeItem(atPath: d.path("keep.txt"))
        try await d.start(waitUntilRunning: false)
        try await d.waitUntil(.error)
        let errors = try await d.status()?.errors.map(\.message) ?? []
        #expect(errors.contains { $0.contains("is empty but 1 synced entries are known") }, "\(errors)")
        #expect(try await rig.server.client(credential: rig.credential).tree(folder: "docs").mapValues(\.contentHash) == expected)
    }
}
