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
    struct Rig {
        let tmp: TemporaryDirectory
        let folder: String
        let index: IndexStore
        var uploader: Uploader

        init() throws {
            tmp = try TemporaryDirectory("landing-download")
            folder = try tmp.sub("folder")
            index = try IndexStore(path: tmp.path + "/index.sqlite")
            let logger = Logger(label: "landing-download-test")
            // Never reached when nothing is sent; a send would fail (nothing listens there).
            let remote = RemoteClient(baseURL: "http://127.0.0.1:9", credential: "none", logger: logger)
            uploader = Uploader(
                folder: "docs", index: index, remote: remote, preparer: Preparer(folder: FolderRoot(folder)),
                progress: TransferProgress(), openWrites: OpenWrites(), maxConcurrent: 2, logger: logger)
        }

        static let arriving = BaseRecord(path: "d/a.txt", kind: .file, rev: 20, contentHash: "h-a", deleted: false, mode: 0o644)

        /// The server had `d`; this device deleted it (rm -r). Then another device's `d/a.txt`
        /// arrived: its download recorded the rows and the intent, and is about to rename.
        func downloadRecordedNotRenamed() throws {
            var update = IndexUpdate()
            update.bases = [
                BaseRecord(path: "d", kind: .directory, rev: 2, contentHash: Hashing.contentHash(chunks: []), deleted: false),
                Self.arriving,
            ]
            update.locals = [
                LocalRecord(
                    path: "d/a.txt", kind: .file, inode: 77, size: 4, mtimeNs: 1, ctimeNs: 1, mode: 0o644, contentHash: "h-a",
                    chunks: [], symlinkTarget: nil)
            ]
            update.intents = [DownloadIntent(path: "d/a.txt", stagedInode: 77, previousLocal: nil, previousBase: nil)]
            try index.records.apply(folder: "docs", update)
        }
    }

    @Test func aDirectoryWhoseChildIsLandingIsNotPushedAsDeleted() async throws {
        let rig = try Rig()
        defer { rig.tmp.remove() }
        try rig.downloadRecordedNotRenamed()
        let staged = await rig.uploader.stage([JournalOp(path: "d", attempts: 0)])
        #expect(staged.changes.isEmpty, "tombstones sent for a landing download: \(staged.changes)")
        #expect(staged.result.fates["d"] == .landing)
        // An intent left by a landing whose last record failed holds the op back only so long.
        let patient = await rig.uploader.stage([JournalOp(path: "d", attempts: Uploader.landingPatience)])
        #expect(patient.changes["d"]?.map(\.change.path) == ["d/a.txt", "d"])
    }

    @Test func aDownloadThatLandsMeanwhileHoldsTheDeleteBack() async throws {
        var rig = try Rig()
        defer { rig.tmp.remove() }
        try rig.downloadRecordedNotRenamed()
        let (folder, index) = (rig.folder, rig.index)
        // The rename happens and the intent is dropped right after the preparations read `d` as gone.
        rig.uploader.afterPreparing = {
            do {
                try FileManager.default.createDirectory(atPath: folder + "/d", withIntermediateDirectories: false)
                try Data("new!".utf8).write(to: URL(fileURLWithPath: folder + "/d/a.txt"))
                var landed = IndexUpdate()
                landed.landed = ["d/a.txt"]
                try index.records.apply(folder: "docs", landed)
            } catch {
                Issue.record("could not land the download: \(error)")
            }
        }
        let staged = await rig.uploader.stage([JournalOp(path: "d", attempts: Uploader.landingPatience)])
        #expect(staged.changes.isEmpty, "tombstones sent over a download that landed: \(staged.changes)")
        #expect(staged.result.fates["d"] == .landing)
    }

    @Test func aDownloadWhoseRenameFailsMeanwhileHoldsTheDeleteBack() async throws {
        var rig = try Rig()
        defer { rig.tmp.remove() }
        try rig.downloadRecordedNotRenamed()
        let index = rig.index
        // The rename fails (its directory is gone): the rows are put back and the intent
        // dropped together, after the preparations read the download's rows.
        rig.uploader.afterPreparing = {
            do {
                try index.records.restore(folder: "docs", path: "d/a.txt", local: nil, base: nil, onlyOver: Rig.arriving)
            } catch {
                Issue.record("could not put the rows back: \(error)")
            }
        }
        let staged = await rig.uploader.stage([JournalOp(path: "d", attempts: 0)])
        #expect(staged.changes.isEmpty, "a tombstone read from rows no longer there: \(staged.changes)")
        #expect(staged.result.fates["d"] == .landing)
        // Looked at again: only `d` itself goes.
        rig.uploader.afterPreparing = nil
        let again = await rig.uploader.stage([JournalOp(path: "d", attempts: 1)])
        #expect(again.changes["d"]?.map(\.change.path) == ["d"])
    }

    /// What a preparation finds unchanged is recorded only over the base it read.
    @Test func anUnchangedPreparationIsRecordedOnlyOverTheBaseItRead() async throws {
        let rig = try Rig()
        defer { rig.tmp.remove() }
        let staged = await rig.uploader.stage([JournalOp(path: "never-there", attempts: 0)])
        #expect(staged.result.fates["never-there"] == .done(.unchanged))
        #expect(staged.result.update.removedLocals == ["never-there"])
        #expect(staged.result.update.preparedOver == ["never-there": 0])
    }

    @Test func aDeletedFileOfNoDownloadIsStillPushed() async throws {
        let rig = try Rig()
        defer { rig.tmp.remove() }
        // A download lands elsewhere in the folder meanwhile.
        try rig.downloadRecordedNotRenamed()
        var update = IndexUpdate()
        update.bases = [BaseRecord(path: "gone.txt", kind: .file, rev: 3, contentHash: "h", deleted: false, mode: 0o644)]
        try rig.index.records.apply(folder: "docs", update)
        let staged = await rig.uploader.stage([JournalOp(path: "gone.txt", attempts: 0)])
        #expect(staged.changes["gone.txt"]?.map(\.change.deleted) == [true])
        #expect(staged.result.fates["gone.txt"] == nil)
    }
}
