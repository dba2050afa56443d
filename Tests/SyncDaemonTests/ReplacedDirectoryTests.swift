import Foundation
import Logging
import SyncClient
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A directory op that finds another directory at its path than the one recorded (the old
/// one deleted or moved out, a new one made there, by a download say) has what was recorded
/// below it looked at again: those entries went with the old directory, and no event says so.
struct ReplacedDirectoryTests {
    static func directory(_ path: String, inode: UInt64) -> LocalRecord {
        LocalRecord(
            path: path, kind: .directory, inode: inode, size: 0, mtimeNs: 0, ctimeNs: 0, mode: 0o755,
            contentHash: Hashing.contentHash(chunks: []), chunks: [], symlinkTarget: nil)
    }

    @Test func anotherInodeAtARecordedDirectoryIsAReplacedDirectory() {
        let recorded = Self.directory("d", inode: 10)
        #expect(Uploader.isReplacedDirectory("d", recorded: recorded, preparation: .unchanged(local: Self.directory("d", inode: 11), removeLocalUnder: nil)))
        #expect(!Uploader.isReplacedDirectory("d", recorded: recorded, preparation: .unchanged(local: Self.directory("d", inode: 10), removeLocalUnder: nil)))
        // A changed directory (its mode, say) that is another one too.
        let change = PreparedChange(
            change: CommitChange(
                path: "d", baseRev: 3, kind: .directory, size: 0, mtimeNs: 0, mode: 0o700, chunks: [],
                contentHash: Hashing.contentHash(chunks: []), deleted: false),
            local: Self.directory("d", inode: 12), source: .none)
        #expect(Uploader.isReplacedDirectory("d", recorded: recorded, preparation: .change([change])))
        // Nothing recorded there, or gone (its tombstones cover what was below), or not sure.
        #expect(!Uploader.isReplacedDirectory("d", recorded: nil, preparation: .unchanged(local: Self.directory("d", inode: 11), removeLocalUnder: nil)))
        #expect(!Uploader.isReplacedDirectory("d", recorded: recorded, preparation: .unchanged(local: nil, removeLocalUnder: "d")))
        #expect(!Uploader.isReplacedDirectory("d", recorded: recorded, preparation: .unstable))
        // A file recorded there, now a directory: the file's op pushes the change; nothing was below it.
        var file = Self.directory("d", inode: 10)
        file.kind = .file
        #expect(!Uploader.isReplacedDirectory("d", recorded: file, preparation: .unchanged(local: Self.directory("d", inode: 11), removeLocalUnder: nil)))
    }

    /// On a real index and folder: `d` was recorded with `d/a.txt` and `d/b.txt`; the `d` on
    /// disk now is another directory holding only `b.txt`. The op of `d` records the new
    /// directory and has `d/a.txt` (only) looked at again, journaled with the batch's records.
    @Test func theOpOfADirectoryMadeAgainLooksAgainAtWhatWentWithTheOldOne() async throws {
        let tmp = try TemporaryDirectory("replaced-dir")
        defer { tmp.remove() }
        let folder = try tmp.sub("folder")
        try FileManager.default.createDirectory(atPath: folder + "/d", withIntermediateDirectories: false)
        try Data("b".utf8).write(to: URL(fileURLWithPath: folder + "/d/b.txt"))
        let inode = try #require(FileManager.default.attributesOfItem(atPath: folder + "/d")[.systemFileNumber] as? UInt64)
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        func record(directoryInode: UInt64) throws {
            var update = IndexUpdate()
            update.bases = [
                BaseRecord(path: "d", kind: .directory, rev: 2, contentHash: Hashing.contentHash(chunks: []), deleted: false, mode: 0o755),
                BaseRecord(path: "d/a.txt", kind: .file, rev: 3, contentHash: "h-a", deleted: false, mode: 0o644),
                BaseRecord(path: "d/b.txt", kind: .file, rev: 4, contentHash: "h-b", deleted: false, mode: 0o644),
            ]
            var directory = Self.directory("d", inode: directoryInode)
            directory.mode = 0o755
            update.locals = [directory]
            try index.records.apply(folder: "docs", update)
        }
        let logger = Logger(label: "replaced-directory-test")
        // Never reached: nothing is sent for an unchanged directory.
        let remote = RemoteClient(baseURL: "http://127.0.0.1:9", credential: "none", logger: logger)
        let uploader = Uploader(
            folder: "docs", index: index, remote: remote, preparer: Preparer(folder: FolderRoot(folder)),
            progress: TransferProgress(), openWrites: OpenWrites(), maxConcurrent: 2, logger: logger)

        // The directory recorded is the one on disk: nothing to look at again.
        try record(directoryInode: inode)
        let same = await uploader.stage([JournalOp(path: "d", attempts: 0)])
        #expect(same.result.update.lookAgain.isEmpty)

        try record(directoryInode: inode + 1_000_000)
        let staged = await uploader.stage([JournalOp(path: "d", attempts: 0)])
        #expect(staged.changes.isEmpty)
        #expect(staged.result.fates["d"] == .done(.unchanged))
        #expect(staged.result.update.lookAgain == ["d/a.txt"])
        #expect(staged.result.update.locals.first { $0.path == "d" }?.inode == inode)
        // Recorded with the batch: `d/a.txt` now has an op of its own.
        _ = try index.journal.finish(folder: "docs", done: ["d"], update: IndexUpdateBox(staged.result.update))
        let ops = try index.journal.claim(folder: "docs", limit: 10)
        #expect(ops.map(\.path) == ["d/a.txt"])
    }
}
