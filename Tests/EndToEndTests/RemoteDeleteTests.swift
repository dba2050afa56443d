import Foundation
import SyncClient
import SyncCore
import Testing
import TestSupport

/// Deletes made on one device, applied on the other: each file to the trash whole; a file
/// edited here before the delete arrived stays and goes back up (an edit beats a delete).
@Suite(.serialized, .timeLimit(.minutes(8)))
struct RemoteDeleteTests {
    static let dir = Hashing.contentHash(chunks: [])

    @Test func manyFilesDeletedOnOneDeviceGoToTheTrashHereAndAnEditAmongThemStays() async throws {
        let two = try await TwoDevices.start("deletes", extraFolderConfig: "max_delete_fraction = 1\nmax_delete_count = 100000", logLevel: "debug")
        defer { two.stop() }
        try FileManager.default.createDirectory(atPath: two.a.path("photos"), withIntermediateDirectories: true)
        var expected = ["photos": Self.dir]
        for i in 0..<300 {
            try writeFile(two.a.path("photos/p\(i).jpg"), "photo \(i)")
            expected["photos/p\(i).jpg"] = contentHash("photo \(i)")
        }
        try await two.waitForBoth(expected, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        await two.a.stop()
        // Alpha's edit of p150, made while its daemon is stopped: the delete must not take it.
        try writeFile(two.a.path("photos/p150.jpg"), "photo 150, edited")
        for i in 0..<300 { try FileManager.default.removeItem(atPath: two.b.path("photos/p\(i).jpg")) }
        let client = two.server.client(credential: two.credentialA)
        try await eventually("beta commits the deletes", timeout: .seconds(30)) {
            try await client.allRevisions(folder: "docs").filter { $0.deleted && $0.path.hasPrefix("photos/p") }.count == 300
        }
        try await two.b.waitUntilIdle()
        try await two.a.start()
        let final = ["photos": Self.dir, "photos/p150.jpg": contentHash("photo 150, edited")]
        try await two.waitForBoth(final, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        // The 299 others are in alpha's trash, whole.
        let trashed = try localTree(two.a.dir + "/state/trash").filter { $0.value != Self.dir }
        #expect(trashed.count == 299, "\(trashed.count) files in alpha's trash")
        #expect(trashed.values.allSatisfy { hash in (0..<300).contains { contentHash("photo \($0)") == hash } })
    }

    /// Where a kill -9 cuts a run of remote deletes on alpha.
    enum Cut: String, CaseIterable, Sendable {
        /// Recorded, each with an intent; no file moved to the trash yet.
        case beforeTheTrash = "before-deletes-trashed"
        /// Moved and made durable; the intents not dropped yet.
        case beforeTheIntentsGo = "before-deletes-done"
        /// The same, and then the user moves every file back from the trash while syncd is
        /// stopped: those are the user's now (their ctime changed), and come back everywhere.
        case thenRestoredByTheUser = "before-deletes-done, then restored from the trash"
    }

    /// A run of 40 remote deletes cut by a real SIGKILL. Cut before the trash, the restart
    /// puts the records back and applies every delete again: nothing pushed back, 40 files
    /// in the trash (without the intents, the files went back up as new). Cut after the moves,
    /// the intents are dropped. Files the user moved back from the trash are pushed as new.
    @Test(arguments: Cut.allCases)
    func deletesCutByAKillConvergeNothingPushedBack(cut: Cut) async throws {
        let (two, original) = try await Self.photosSyncedAlphaStopped("deletes-cut")
        defer { two.stop() }
        let revBefore = try await Self.betaDeletesThePhotos(two)
        let point = cut == .beforeTheTrash ? Cut.beforeTheTrash.rawValue : Cut.beforeTheIntentsGo.rawValue
        try await two.a.start(waitUntilRunning: false, environment: ["SYNCD_CRASH_POINT": "\(point):photos/p0.jpg"])
        #expect(try await two.a.waitForExit(timeout: .seconds(60)), "the crash point did not fire")
        let fm = FileManager.default
        let left = (0..<40).filter { fm.fileExists(atPath: two.a.path("photos/p\($0).jpg")) }
        #expect(left.count == (cut == .beforeTheTrash ? 40 : 0), "\(left.count) files at their paths after the kill")
        let trash = two.a.dir + "/state/trash"
        guard cut == .thenRestoredByTheUser else {
            try await two.restartExpectingNothingCommitted(two.a, ["photos": Self.dir], revBefore: revBefore)
            let trashed = try localTree(trash).filter { $0.value != Self.dir }
            #expect(trashed.count == 40, "\(trashed.count) files in alpha's trash")
            return
        }
        for (path, _) in try localTree(trash) where path.hasSuffix(".jpg") {
            try fm.moveItem(atPath: trash + "/" + path, toPath: two.a.path("photos/" + (path as NSString).lastPathComponent))
        }
        try await two.a.start()
        try await two.waitForBoth(original, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        #expect(try await two.a.status()?.conflicts == 0)
    }

    /// Beta removes the whole photos directory; alpha's run of 41 deletes (the files, then the
    /// directory) is cut by a real SIGKILL: after the files are in the trash, before the
    /// directory, emptied, is removed; or before anything is moved. The restart finds the
    /// directory there (the same inode; its ctime changed with the moves), puts its records
    /// back (and the files', when they are there untouched) and removes it all: nothing is
    /// pushed back. With a directory matched by inode and ctime, or with no intent, the first
    /// cut's directory went back up as new.
    @Test(arguments: ["before-delete-removed", "before-deletes-trashed"])
    func aDirectoryDeleteCutByAKillConvergesNothingPushedBack(cut: String) async throws {
        let (two, _) = try await Self.photosSyncedAlphaStopped("deletes-dir-cut")
        defer { two.stop() }
        let revBefore = try await Self.betaDeletesThePhotos(two, directoryToo: true)
        try await two.a.start(waitUntilRunning: false, environment: ["SYNCD_CRASH_POINT": "\(cut):photos"])
        #expect(try await two.a.waitForExit(timeout: .seconds(60)), "the crash point did not fire")
        let fm = FileManager.default
        let left = (0..<40).filter { fm.fileExists(atPath: two.a.path("photos/p\($0).jpg")) }
        #expect(left.count == (cut == "before-deletes-trashed" ? 40 : 0), "\(left.count) files at their paths after the kill")
        #expect(fm.fileExists(atPath: two.a.path("photos")), "the directory is not removed yet")
        try await two.restartExpectingNothingCommitted(two.a, [:], revBefore: revBefore)
        #expect(!fm.fileExists(atPath: two.a.path("photos")))
        let trashed = try localTree(two.a.dir + "/state/trash").filter { $0.value != Self.dir }
        #expect(trashed.count == 40, "\(trashed.count) files in alpha's trash")
    }

    /// Beta removes the photos directory while alpha, stopped, gets a new file in it. Alpha
    /// moves the 40 photos to the trash and keeps the directory, with the new file, which
    /// comes back on beta (a new file beats a delete). (A file made while the run removes the
    /// directory: `DirectoryDeleteRunTests`.)
    @Test func aDirectoryDeletedElsewhereThatGotANewFileHereStaysWithIt() async throws {
        let (two, _) = try await Self.photosSyncedAlphaStopped("deletes-dir-kept")
        defer { two.stop() }
        _ = try await Self.betaDeletesThePhotos(two, directoryToo: true)
        try writeFile(two.a.path("photos/new.txt"), "new here")
        try await two.a.start()
        try await two.waitForBoth(["photos": Self.dir, "photos/new.txt": contentHash("new here")], timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        let trashed = try localTree(two.a.dir + "/state/trash").filter { $0.value != Self.dir }
        #expect(trashed.count == 40, "\(trashed.count) files in alpha's trash")
        #expect(try await two.a.status()?.errors.isEmpty == true)
    }

    /// The barrier after a run's moves to the trash fails (an injected EIO): each path shows
    /// the error and keeps its intent, nothing is pushed back. The next start finds the files
    /// gone, settles the intents and the errors, and commits nothing.
    @Test func aFailedBarrierShowsItsErrorsAndTheNextStartSettlesThem() async throws {
        let (two, _) = try await Self.photosSyncedAlphaStopped("deletes-barrier")
        defer { two.stop() }
        try await two.a.start(environment: ["SYNCD_FAULT": "delete-barrier"])
        let revBefore = try await Self.betaDeletesThePhotos(two)
        try await eventually("alpha shows the 40 deletes it could not make durable", timeout: .seconds(60)) {
            let errors = try await two.a.status()?.errors ?? []
            return errors.filter { $0.code == "interrupted" && $0.message.contains("perhaps not durably") }.count == 40
        }
        let fm = FileManager.default
        #expect((0..<40).allSatisfy { !fm.fileExists(atPath: two.a.path("photos/p\($0).jpg")) }, "moved to the trash all the same")
        try await two.a.waitUntilIdle()
        await two.a.stop()
        try await two.restartExpectingNothingCommitted(two.a, ["photos": Self.dir], revBefore: revBefore)
        #expect(try await two.a.status()?.errors.isEmpty == true, "the errors are settled")
        let trashed = try localTree(two.a.dir + "/state/trash").filter { $0.value != Self.dir }
        #expect(trashed.count == 40, "\(trashed.count) files in alpha's trash")
    }

    /// Alpha's trash is on another file system (a tmpfs): a file goes there by a rename to a
    /// trash staging name beside it, then a copy (to a temporary name in the trash, renamed to
    /// its own once durable). A real SIGKILL before the copy, or before that rename: the next
    /// start finds the delete done (its intent, the path empty), and moves the staged file to
    /// the trash instead of removing it with the download staging files. The other deletes of
    /// the run are applied again; nothing is committed; all 40 photos are in the trash, whole.
    @Test(arguments: ["before-trash-copy", "during-trash-copy"])
    func aKillDuringACopyToATrashElsewhereLosesNoTrashedFile(cut: String) async throws {
        let (two, original) = try await Self.photosSyncedAlphaStopped("deletes-trash-copy")
        let trash = "/dev/shm/syncd-test-trash-\(UUID().uuidString.prefix(8))"
        defer {
            two.stop()
            do { try FileManager.default.removeItem(atPath: trash) } catch { print("cannot remove \(trash): \(error)") }
        }
        try FileManager.default.createDirectory(atPath: trash, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: two.a.dir + "/state/trash", withDestinationPath: trash)
        let revBefore = try await Self.betaDeletesThePhotos(two)
        try await two.a.start(waitUntilRunning: false, environment: ["SYNCD_CRASH_POINT": "\(cut):photos/p7.jpg"])
        #expect(try await two.a.waitForExit(timeout: .seconds(60)), "the crash point did not fire")
        let staged = try FileManager.default.contentsOfDirectory(atPath: two.a.path("photos"))
            .filter { $0.hasPrefix(".syncd-tmp-trash-") }
        #expect(staged.count == 1, "p7 is not left under a trash staging name: \(staged)")

        try await two.restartExpectingNothingCommitted(two.a, ["photos": Self.dir], revBefore: revBefore)
        #expect(try FileManager.default.contentsOfDirectory(atPath: two.a.path("photos")).isEmpty)
        let trashed = try localTree(trash).filter { $0.value != Self.dir }
        let photos = original.filter { $0.key != "photos" }
        #expect(trashed.values.sorted() == photos.values.sorted(), "\(trashed.count) files in alpha's trash, \(photos.count) photos")
        // Each under its own name, once (p7 in a stamp of its own; no copy of it cut short, nor
        // whole, under its name in the run's stamp).
        let names = trashed.keys.compactMap { $0.split(separator: "/").last.map(String.init) }
        #expect(names.sorted() == photos.keys.compactMap { $0.split(separator: "/").last.map(String.init) }.sorted())
    }

    /// Two devices with 40 photos synced (photos/p<i>.jpg), both idle, alpha stopped; and
    /// what both held then.
    static func photosSyncedAlphaStopped(_ name: String) async throws -> (TwoDevices, [String: String]) {
        let two = try await TwoDevices.start(name, extraFolderConfig: "max_delete_fraction = 1\nmax_delete_count = 100000")
        do {
            let original = try RemoteMoveTests.photos(on: two, count: 40)
            try await two.waitForBoth(original, timeout: .seconds(60))
            try await two.a.waitUntilIdle()
            try await two.b.waitUntilIdle()
            await two.a.stop()
            return (two, original)
        } catch {
            await two.stop()
            throw error
        }
    }

    /// Beta deletes the 40 photos (and the directory, `directoryToo`); returns the server's
    /// revision once it holds the deletes and beta is idle.
    static func betaDeletesThePhotos(_ two: TwoDevices, directoryToo: Bool = false) async throws -> Int64 {
        if directoryToo {
            try FileManager.default.removeItem(atPath: two.b.path("photos"))
        } else {
            for i in 0..<40 { try FileManager.default.removeItem(atPath: two.b.path("photos/p\(i).jpg")) }
        }
        let client = two.server.client(credential: two.credentialA)
        try await eventually("beta commits the deletes", timeout: .seconds(30)) {
            let deleted = try await client.allRevisions(folder: "docs").filter(\.deleted).map(\.path)
            return deleted.filter { $0.hasPrefix("photos/p") }.count == 40 && (!directoryToo || deleted.contains("photos"))
        }
        try await two.b.waitUntilIdle()
        return try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
    }
}
