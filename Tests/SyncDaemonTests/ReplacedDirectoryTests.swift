import SyncCore
import Testing

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
}
