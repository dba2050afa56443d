import Foundation
import SyncClient
import SyncCore
import Testing
import TestSupport

/// Moves made on one device, applied on the other: a directory renamed whole when this
/// device holds exactly what moved (decision 0031), files renamed in runs recorded after one
/// barrier; a kill -9 between the renames and their records, or a power cut that loses
/// the renames, loses nothing and pushes nothing back.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct RemoteMoveTests {
    static let dir = Hashing.contentHash(chunks: [])

    /// Alpha dies after renaming a moved directory whole (made durable) and before its
    /// records are re-keyed. After the restart the files are at their new paths on both
    /// devices and nowhere else, alpha commits nothing, and nothing went to its trash.
    @Test func aDirectoryMoveCutBeforeItsRecordsConvergesNothingPushed() async throws {
        let two = try await TwoDevices.start("dir-move-cut")
        defer { two.stop() }
        var expected: [String: String] = ["album": Self.dir, "album/raw": Self.dir]
        try FileManager.default.createDirectory(atPath: two.a.path("album/raw"), withIntermediateDirectories: true)
        for i in 0..<50 {
            let path = i % 5 == 0 ? "album/raw/p\(i).jpg" : "album/p\(i).jpg"
            try writeFile(two.a.path(path), "photo \(i)")
            expected[path] = contentHash("photo \(i)")
        }
        try await two.waitForBoth(expected, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        await two.a.stop()
        try FileManager.default.moveItem(atPath: two.b.path("album"), toPath: two.b.path("Album 2026"))
        expected = Dictionary(uniqueKeysWithValues: expected.map { ("Album 2026" + $0.key.dropFirst(5), $0.value) })
        let client = two.server.client(credential: two.credentialA)
        try await eventually("beta commits the move", timeout: .seconds(30)) {
            try await client.allRevisions(folder: "docs").contains { $0.path == "Album 2026" && !$0.deleted }
        }
        try await two.b.waitUntilIdle()
        let revBefore = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        try await two.a.start(waitUntilRunning: false, environment: ["SYNCD_CRASH_POINT": "before-move-recorded:Album 2026"])
        #expect(try await two.a.waitForExit(timeout: .seconds(60)), "the crash point did not fire")
        #expect(FileManager.default.fileExists(atPath: two.a.path("Album 2026/p1.jpg")))
        #expect(!FileManager.default.fileExists(atPath: two.a.path("album")))
        try await Self.expectAlphaRestartsToConverge(two, expected, revBefore: revBefore)
    }

    /// A directory moved on beta while alpha holds an edit of one of its files not pushed
    /// yet (alpha's daemon is stopped): the move is not renamed whole over the edit, which
    /// reaches both devices (at the old path or the new one, never lost).
    @Test func aDirectoryMovedOverAnEditNotPushedYetKeepsTheEdit() async throws {
        let two = try await TwoDevices.start("dir-move-edit")
        defer { two.stop() }
        var expected: [String: String] = ["album": Self.dir]
        try FileManager.default.createDirectory(atPath: two.a.path("album"), withIntermediateDirectories: true)
        for i in 0..<20 {
            try writeFile(two.a.path("album/p\(i).jpg"), "photo \(i)")
            expected["album/p\(i).jpg"] = contentHash("photo \(i)")
        }
        try await two.waitForBoth(expected, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        let inodeBefore = try inode(of: two.a.path("album"))
        await two.a.stop()
        try writeFile(two.a.path("album/p3.jpg"), "photo 3, edited")
        try FileManager.default.moveItem(atPath: two.b.path("album"), toPath: two.b.path("moved"))
        try await two.b.waitUntilIdle()
        try await two.a.start()
        let edited = contentHash("photo 3, edited")
        var final: [String: String] = [:]
        try await eventually("the edit is on both devices, and they agree", timeout: .seconds(60)) {
            let a = try localTree(two.a.folderPath), b = try localTree(two.b.folderPath)
            final = a
            return a == b && a.values.contains(edited)
        }
        // Every other photo is in the moved directory.
        for i in 0..<20 where i != 3 {
            #expect(final["moved/p\(i).jpg"] == contentHash("photo \(i)"), "p\(i).jpg")
        }
        #expect(try inode(of: two.a.path("moved")) != inodeBefore, "alpha renamed the directory whole over the edit")
    }

    /// Files renamed one by one on beta (each its own move on the server) are renamed on
    /// alpha: the same inodes (nothing copied), nothing in the trash, nothing committed by
    /// alpha, and nothing journaled (each rename's event is known as its echo).
    @Test func filesRenamedOnOneDeviceAreRenamedHereNotPushedBack() async throws {
        let two = try await TwoDevices.start("file-renames", logLevel: "trace")
        defer { two.stop() }
        var expected = try Self.photos(on: two, count: 300)
        try await two.waitForBoth(expected, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        let inodes = try (0..<300).map { try inode(of: two.a.path("photos/p\($0).jpg")) }
        let client = two.server.client(credential: two.credentialA)
        let before = try await client.allRevisions(folder: "docs").map(\.rev).max() ?? 0
        let logBefore = two.a.log.utf8.count, betaLogBefore = two.b.log.utf8.count
        expected = try Self.renamePhotos(on: two.b, count: 300)
        try await two.waitForBoth(expected, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        // 300 moves: an arrival and a departure each, all beta's.
        let after = try await client.allRevisions(folder: "docs").filter { $0.rev > before }
        #expect(after.count == 600, "\(after.count) revisions")
        #expect(after.allSatisfy { $0.movedFrom != nil || $0.movedTo != nil })
        for i in 0..<300 {
            #expect(try inode(of: two.a.path("photos/q\(i).jpg")) == inodes[i], "q\(i).jpg is a copy")
        }
        let trashed = try localTree(two.a.dir + "/state/trash").filter { $0.value != Self.dir }
        #expect(trashed.isEmpty, "\(trashed.count) files in alpha's trash")
        let since = String(decoding: two.a.log.utf8.dropFirst(logBefore), as: UTF8.self)
        let fates = since.split(separator: "\n").filter { $0.contains("push fate") }
        // Beta pushed each move with its source's op done in the same batch (not put back to
        // run again, which took half of each next batch).
        let betaSince = String(decoding: two.b.log.utf8.dropFirst(betaLogBefore), as: UTF8.self)
        let putBack = betaSince.split(separator: "\n").filter { $0.contains("fate=\"deferred(forgetMove: false)\"") }
        #expect(putBack.isEmpty, "beta put \(putBack.count) sources back")
        #expect(fates.isEmpty, "alpha journaled the renames: \(fates.count): \(fates.filter { $0.contains("/q") }.count) new paths; \(fates.prefix(3).joined(separator: "\n"))")
    }

    /// A directory alpha holds with an ignored file in it is not renamed whole (the file
    /// would move along, where other rules, or none, apply to it): it goes one by one, and
    /// the ignored file never reaches the server.
    @Test func aDirectoryHoldingAnIgnoredFileIsNotRenamedWhole() async throws {
        let two = try await TwoDevices.start("dir-move-ignored")
        defer { two.stop() }
        try writeFile(two.a.path(".syncignore"), "*.tmp\n")
        var expected: [String: String] = [".syncignore": contentHash("*.tmp\n"), "album": Self.dir]
        try FileManager.default.createDirectory(atPath: two.a.path("album"), withIntermediateDirectories: true)
        for i in 0..<10 {
            try writeFile(two.a.path("album/p\(i).jpg"), "photo \(i)")
            expected["album/p\(i).jpg"] = contentHash("photo \(i)")
        }
        try await two.waitForBoth(expected, timeout: .seconds(60))
        try writeFile(two.a.path("album/scratch.tmp"), "alpha's own")
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        let inodeBefore = try inode(of: two.a.path("album"))
        try FileManager.default.moveItem(atPath: two.b.path("album"), toPath: two.b.path("moved"))
        let client = two.server.client(credential: two.credentialA)
        try await eventually("alpha has the photos at the new path", timeout: .seconds(60)) {
            (0..<10).allSatisfy { FileManager.default.fileExists(atPath: two.a.path("moved/p\($0).jpg")) }
        }
        try await two.a.waitUntilIdle()
        #expect(try inode(of: two.a.path("moved")) != inodeBefore, "alpha renamed the directory whole with its ignored file")
        #expect(!FileManager.default.fileExists(atPath: two.a.path("moved/scratch.tmp")))
        let paths = try await client.allRevisions(folder: "docs").map(\.path)
        #expect(!paths.contains { $0.hasSuffix("scratch.tmp") }, "the ignored file reached the server")
    }

    /// Files renumbered on beta (p01 → p00, p02 → p01, …, in path order): each rename is
    /// planned against the records of the one before it, which a run has not written yet,
    /// so the run ends there. Alpha renames every file (same inodes), commits nothing, and
    /// has no conflict.
    @Test func filesRenumberedOnOneDeviceAreRenamedHereInChains() async throws {
        let two = try await TwoDevices.start("renumber", logLevel: "trace")
        defer { two.stop() }
        try FileManager.default.createDirectory(atPath: two.a.path("photos"), withIntermediateDirectories: true)
        for i in 1...30 { try writeFile(two.a.path("photos/p\(Self.two(i)).jpg"), "photo \(Self.two(i))") }
        var expected = ["photos": Self.dir]
        for i in 1...30 { expected["photos/p\(Self.two(i)).jpg"] = contentHash("photo \(Self.two(i))") }
        try await two.waitForBoth(expected, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        let inodes = try (1...30).map { try inode(of: two.a.path("photos/p\(Self.two($0)).jpg")) }
        let client = two.server.client(credential: two.credentialA)
        let before = try await client.allRevisions(folder: "docs").map(\.rev).max() ?? 0
        await two.a.stop()
        expected = ["photos": Self.dir]
        // One at a time, each committed, and beta idle, before the next: 30 moves on the
        // server, a chain. (This test is about alpha applying the chain; a rename onto the old
        // name of a move beta is still recording is `RenameChainTests`, decision 0038.)
        for i in 1...30 {
            try FileManager.default.moveItem(atPath: two.b.path("photos/p\(Self.two(i)).jpg"), toPath: two.b.path("photos/p\(Self.two(i - 1)).jpg"))
            expected["photos/p\(Self.two(i - 1)).jpg"] = contentHash("photo \(Self.two(i))")
            do {
                try await eventually("beta commits the move to p\(Self.two(i - 1)).jpg", timeout: .seconds(30)) {
                    try await client.allRevisions(folder: "docs").contains { $0.rev > before && $0.path == "photos/p\(Self.two(i - 1)).jpg" && $0.movedFrom != nil }
                }
            } catch {
                throw TestFailure("\(error)" + (await two.postMortem()))
            }
            try await two.b.waitUntilIdle()
        }
        let revBefore = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        let logBefore = two.a.log.utf8.count
        try await two.a.start()
        try await two.waitForBoth(expected, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        let revAfter = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        #expect(revAfter == revBefore, "alpha committed \(revAfter - revBefore) revisions")
        #expect(try await two.a.status()?.conflicts == 0)
        // Every rename recorded (none left out for a stale guard, its paths journaled and
        // looked at again), and known as its echo. (The directory itself may be, by the
        // start-up scan that meets the renames.)
        let since = String(decoding: two.a.log.utf8.dropFirst(logBefore), as: UTF8.self)
        let fates = since.split(separator: "\n").filter { $0.contains("push fate") && $0.contains("path=photos/") }
        #expect(fates.isEmpty, "alpha journaled \(fates.count) paths: \(fates.prefix(3).joined(separator: "\n"))")
        for i in 1...30 {
            #expect(try inode(of: two.a.path("photos/p\(Self.two(i - 1)).jpg")) == inodes[i - 1], "p\(Self.two(i - 1)).jpg is a copy")
        }
    }

    /// `i` in two digits (names that sort in the chain's order).
    static func two(_ i: Int) -> String { i < 10 ? "0\(i)" : "\(i)" }

    /// Alpha dies after renaming a run of files for remote moves (made durable) and before
    /// recording any of them. After its restart every file is at its new path on both
    /// devices, alpha commits nothing and trashes nothing. With `undo`, the test first puts
    /// each renamed file back at its old path, as a power cut that lost the renames would
    /// have: nothing recorded says otherwise, and the restart renames them again.
    @Test(arguments: [false, true])
    func renamesCutBeforeTheirRecordsConverge(undo: Bool) async throws {
        let two = try await TwoDevices.start("renames-cut")
        defer { two.stop() }
        let original = try Self.photos(on: two, count: 40)
        try await two.waitForBoth(original, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        await two.a.stop()
        let expected = try Self.renamePhotos(on: two.b, count: 40)
        let client = two.server.client(credential: two.credentialA)
        try await eventually("beta commits the 40 moves", timeout: .seconds(30)) {
            try await client.allRevisions(folder: "docs").filter { $0.movedFrom != nil }.count == 40
        }
        try await two.b.waitUntilIdle()
        let revBefore = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        try await two.a.start(waitUntilRunning: false, environment: ["SYNCD_CRASH_POINT": "before-renames-recorded:photos/q0.jpg"])
        #expect(try await two.a.waitForExit(timeout: .seconds(60)), "the crash point did not fire")
        let fm = FileManager.default
        let renamed = (0..<40).filter { fm.fileExists(atPath: two.a.path("photos/q\($0).jpg")) }
        #expect(renamed.count == 40, "\(renamed.count) renamed before the kill")
        if undo {
            for i in renamed { try fm.moveItem(atPath: two.a.path("photos/q\(i).jpg"), toPath: two.a.path("photos/p\(i).jpg")) }
        }
        try await Self.expectAlphaRestartsToConverge(two, expected, revBefore: revBefore)
    }

    /// Alpha restarted after a kill: both have `expected`, alpha committed nothing and made
    /// no conflict copy, and nothing went to its trash.
    static func expectAlphaRestartsToConverge(_ two: TwoDevices, _ expected: [String: String], revBefore: Int64) async throws {
        try await two.restartExpectingNothingCommitted(two.a, expected, revBefore: revBefore)
        let trashed = try localTree(two.a.dir + "/state/trash").filter { $0.value != Self.dir }
        #expect(trashed.isEmpty, "\(trashed.count) files in alpha's trash")
    }

    /// `count` photos (photos/p<i>.jpg) written on alpha; what both must end with.
    static func photos(on two: TwoDevices, count: Int) throws -> [String: String] {
        try FileManager.default.createDirectory(atPath: two.a.path("photos"), withIntermediateDirectories: true)
        var expected = ["photos": Self.dir]
        for i in 0..<count {
            try writeFile(two.a.path("photos/p\(i).jpg"), "photo \(i)")
            expected["photos/p\(i).jpg"] = contentHash("photo \(i)")
        }
        return expected
    }

    /// Renames each photo p<i>.jpg to q<i>.jpg on `device`; what both must end with.
    static func renamePhotos(on device: DaemonProcess, count: Int) throws -> [String: String] {
        var expected = ["photos": Self.dir]
        for i in 0..<count {
            try FileManager.default.moveItem(atPath: device.path("photos/p\(i).jpg"), toPath: device.path("photos/q\(i).jpg"))
            expected["photos/q\(i).jpg"] = contentHash("photo \(i)")
        }
        return expected
    }
}
