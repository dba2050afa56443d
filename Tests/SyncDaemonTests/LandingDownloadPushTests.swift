import Foundation
import Logging
import SyncClient
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A push prepared while a download lands (its rows recorded, its file not yet renamed into
/// place) must not read the file as deleted here: on a real index and folder.
struct LandingDownloadPushTests {
    @Test func aDirectoryWhoseChildIsLandingIsNotPushedAsDeleted() async throws {
        let tmp = try TemporaryDirectory("landing-download")
        defer { tmp.remove() }
        let folder = try tmp.sub("folder")
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        // The server had `d`; this device deleted it (rm -r). Then another device's `d/a.txt`
        // arrived: its download recorded the rows and the intent, and is about to rename.
        var update = IndexUpdate()
        update.bases = [
            BaseRecord(path: "d", kind: .directory, rev: 2, contentHash: Hashing.contentHash(chunks: []), deleted: false),
            BaseRecord(path: "d/a.txt", kind: .file, rev: 20, contentHash: "h-a", deleted: false, mode: 0o644),
        ]
        update.locals = [
            LocalRecord(
                path: "d/a.txt", kind: .file, inode: 77, size: 4, mtimeNs: 1, ctimeNs: 1, mode: 0o644, contentHash: "h-a",
                chunks: [], symlinkTarget: nil)
        ]
        update.intents = [DownloadIntent(path: "d/a.txt", stagedInode: 77, previousLocal: nil, previousBase: nil)]
        try index.records.apply(folder: "docs", update)

        let logger = Logger(label: "landing-download-test")
        // Never reached when the fix holds: nothing is sent.
        let remote = RemoteClient(baseURL: "http://127.0.0.1:9", credential: "none", logger: logger)
        let uploader = Uploader(
            folder: "docs", index: index, remote: remote, preparer: Preparer(folder: FolderRoot(folder)),
            progress: TransferProgress(), openWrites: OpenWrites(), maxConcurrent: 2, logger: logger)

        let staged = await uploader.stage([JournalOp(path: "d", attempts: 0)])
        #expect(staged.changes.isEmpty, "tombstones sent for a landing download: \(staged.changes)")
        #expect(staged.result.fates["d"] == .unstable)
        // An intent left by a landing whose last record failed holds the op back only so long.
        let patient = await uploader.stage([JournalOp(path: "d", attempts: Uploader.landingPatience)])
        #expect(patient.changes["d"]?.map(\.change.path) == ["d/a.txt", "d"])

        // Landed (intent dropped, the file in place): `d` is there again, nothing to delete.
        try FileManager.default.createDirectory(atPath: folder + "/d", withIntermediateDirectories: false)
        try Data("new!".utf8).write(to: URL(fileURLWithPath: folder + "/d/a.txt"))
        var landed = IndexUpdate()
        landed.landed = ["d/a.txt"]
        try index.records.apply(folder: "docs", landed)
        let again = await uploader.stage([JournalOp(path: "d", attempts: 0)])
        #expect(again.changes["d"]?.contains(where: \.change.deleted) != true)
    }

    @Test func aDeletedFileOfNoDownloadIsStillPushed() async throws {
        let tmp = try TemporaryDirectory("landing-download")
        defer { tmp.remove() }
        let folder = try tmp.sub("folder")
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        var update = IndexUpdate()
        update.bases = [BaseRecord(path: "gone.txt", kind: .file, rev: 3, contentHash: "h", deleted: false, mode: 0o644)]
        try index.records.apply(folder: "docs", update)
        let logger = Logger(label: "landing-download-test")
        let remote = RemoteClient(baseURL: "http://127.0.0.1:9", credential: "none", logger: logger)
        let uploader = Uploader(
            folder: "docs", index: index, remote: remote, preparer: Preparer(folder: FolderRoot(folder)),
            progress: TransferProgress(), openWrites: OpenWrites(), maxConcurrent: 2, logger: logger)
        let staged = await uploader.stage([JournalOp(path: "gone.txt", attempts: 0)])
        #expect(staged.changes["gone.txt"]?.map(\.change.deleted) == [true])
    }
}
